// Prints what Library.CheckAbi says of the native library it finds: "accepted", or the
// message it throws. Run by test.sh against stand-in plug-ins (plugin.c), and with none.
using System;

static class StaleCheck
{
    static int Main()
    {
        try
        {
            Omote.Library.CheckAbi();
            Console.WriteLine("accepted");
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine(e.Message);
        }
        catch (DllNotFoundException e)
        {
            Console.WriteLine(e.Message);
        }
        return 0;
    }
}
