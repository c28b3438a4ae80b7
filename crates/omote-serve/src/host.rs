//! Who may talk to a loopback server: the `Host` a request names (against DNS
//! rebinding) and the `Origin` of a WebSocket page (a page elsewhere must not read the
//! stream).

use std::net::IpAddr;

/// Is `host` (a `Host` header value) this server on loopback: a loopback name or
/// address, and this port if it names one?
pub fn loopback_host(host: &str, port: u16) -> bool {
    let (name, host_port) = split_port(host);
    let port_ok = host_port.is_none_or(|p| p.parse::<u16>() == Ok(port));
    port_ok && loopback_name(name)
}

/// Is `origin` (an `Origin` header value, `http://127.0.0.1:8080`) a page on a
/// loopback host? Any port: a page served by another process on this machine could
/// connect without a browser anyway. `null` (a file, a sandbox) is not.
pub fn loopback_origin(origin: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    if !web || authority.contains(['/', '@', '?', '#']) {
        return false;
    }
    let (name, port) = split_port(authority);
    port.is_none_or(|p| p.parse::<u16>().is_ok()) && loopback_name(name)
}

/// `name` and `port` of `name:port`; an IPv6 address keeps its brackets.
fn split_port(host: &str) -> (&str, Option<&str>) {
    match host.rsplit_once(':') {
        Some((n, p)) if !p.contains(']') => (n, Some(p)),
        _ => (host, None),
    }
}

fn loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost")
        || name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(loopback_host("127.0.0.1:8080", 8080));
        assert!(loopback_host("localhost:8080", 8080));
        assert!(loopback_host("LOCALHOST", 8080));
        assert!(loopback_host("[::1]:8080", 8080));
        assert!(loopback_host("127.0.0.1", 8080));
        assert!(!loopback_host("127.0.0.1:8081", 8080));
        assert!(!loopback_host("evil.example:8080", 8080));
        assert!(!loopback_host("localhost.evil.example:8080", 8080));
        assert!(!loopback_host("", 8080));
    }

    #[test]
    fn loopback_origins() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://localhost:3000",
            "HTTPS://LOCALHOST",
            "http://[::1]:8080",
            "http://127.1.2.3",
        ] {
            assert!(loopback_origin(ok), "{ok}");
        }
        for bad in [
            "null",
            "",
            "http://evil.example",
            "http://localhost.evil.example:8080",
            "http://127.0.0.1.evil.example",
            "http://evil.example@127.0.0.1",
            "file://localhost",
            "ws://localhost:8080",
            "http://localhost:8080/path",
            "http://localhost:99999",
            "http://[::2]:8080",
        ] {
            assert!(!loopback_origin(bad), "{bad}");
        }
    }
}
