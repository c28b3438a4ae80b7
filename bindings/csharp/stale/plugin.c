/* A stand-in for an omote plug-in of another build, for test.sh's start-up check of the
   C# layer (Library.CheckAbi): its ABI numbers come from -D flags, and without
   -DABI_MINOR it predates omote_abi_minor, as a plug-in built before 2026-12-06 does. */
#include <stdint.h>

uint32_t omote_abi_version(void) { return ABI_VERSION; }

#ifdef ABI_MINOR
uint32_t omote_abi_minor(void) { return ABI_MINOR; }
#endif
