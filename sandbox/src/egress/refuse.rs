//! Addresses a run never reaches, whatever its allowlist says: the host itself (loopback and
//! every address of its interfaces), link-local (cloud metadata at 169.254.169.254), private
//! and shared ranges (RFC 1918, CGNAT 100.64/10, ULA fc00::/7), unspecified, multicast,
//! broadcast and reserved space, and IPv6 forms that carry one of those IPv4 addresses
//! (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is refused, or `None` when a run may connect to it. `host` are the addresses of
/// this machine's interfaces, read just before the check (interfaces come and go).
pub fn refused(ip: IpAddr, host: &[IpAddr]) -> Option<String> {
    let class = match ip {
        IpAddr::V4(v4) => v4_class(v4).map(|c| format!("{ip} is {c}")),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                let class = v4_class(v4).map(|c| format!("{ip} carries {v4}, which is {c}"));
                return class.or_else(|| {
                    host.contains(&IpAddr::V4(v4))
                        .then(|| format!("{ip} carries {v4}, an address of this machine"))
                });
            }
            v6_class(v6).map(|c| format!("{ip} is {c}"))
        }
    };
    class.or_else(|| {
        host.contains(&ip)
            .then(|| format!("{ip} is an address of this machine"))
    })
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b) {
        (0, _) => "unspecified (0.0.0.0/8)",
        (127, _) => "loopback (the machine itself)",
        (10, _) => "private (10/8)",
        (172, 16..=31) => "private (172.16/12)",
        (192, 168) => "private (192.168/16)",
        (100, 64..=127) => "shared address space (CGNAT 100.64/10)",
        (169, 254) => "link-local (169.254/16, where cloud metadata lives)",
        (192, 0) if c == 0 => "reserved for protocol assignments (192.0.0/24)",
        (224..=239, _) => "multicast",
        (240..=255, _) => "reserved or broadcast (240/4)",
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    Some(if ip.is_unspecified() {
        "unspecified (::)"
    } else if ip.is_loopback() {
        "loopback (the machine itself)"
    } else if s[0] & 0xffc0 == 0xfe80 {
        "link-local (fe80::/10)"
    } else if s[0] & 0xffc0 == 0xfec0 {
        "site-local (fec0::/10)"
    } else if s[0] & 0xfe00 == 0xfc00 {
        "a unique local address (fc00::/7)"
    } else if s[0] & 0xff00 == 0xff00 {
        "multicast"
    } else {
        return None;
    })
}

/// The IPv4 address an IPv6 address stands for, in the forms that route to it.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    // IPv4-compatible (deprecated): ::a.b.c.d, but not :: and ::1 themselves.
    if s[..6].iter().all(|&x| x == 0) && !ip.is_unspecified() && !ip.is_loopback() {
        return Some(low);
    }
    // NAT64 well-known prefix 64:ff9b::/96.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|&x| x == 0) {
        return Some(low);
    }
    // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

/// This machine's interface addresses; an error leaves only the fixed ranges, which already
/// cover loopback (a failure to enumerate is logged by the caller's refusal reason if it hits).
pub fn host_addresses() -> std::io::Result<Vec<IpAddr>> {
    Ok(if_addrs::get_if_addrs()?
        .into_iter()
        .map(|i| i.ip())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no(ip: &str) -> String {
        refused(ip.parse().unwrap(), &[]).unwrap_or_else(|| panic!("{ip} was allowed"))
    }

    fn yes(ip: &str) {
        assert_eq!(refused(ip.parse().unwrap(), &[]), None, "{ip}");
    }

    #[test]
    fn the_machine_and_private_space_are_refused_in_every_spelling() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "0.0.0.0",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.0.170",
            "::",
            "::1",
            "fe80::1",
            "fd00::2",
            "fc00::1",
            "ff02::1",
            "fec0::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::ffff:10.1.2.3",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
        ] {
            no(ip);
        }
        assert!(no("::ffff:127.0.0.1").contains("127.0.0.1"));
        assert!(no("169.254.169.254").contains("link-local"));
    }

    #[test]
    fn public_and_test_networks_pass_unless_they_are_this_machine() {
        for ip in [
            "93.184.215.14",
            "198.18.0.2",
            "192.0.2.7",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "64:ff9b::5db8:d70e",
        ] {
            yes(ip);
        }
        let host: Vec<IpAddr> = vec!["192.0.2.2".parse().unwrap(), "2001:db8::2".parse().unwrap()];
        let r = refused("192.0.2.2".parse().unwrap(), &host).unwrap();
        assert!(r.contains("address of this machine"), "{r}");
        assert!(refused("::ffff:192.0.2.2".parse().unwrap(), &host).is_some());
        assert!(refused("2001:db8::2".parse().unwrap(), &host).is_some());
        assert!(refused("192.0.2.3".parse().unwrap(), &host).is_none());
    }

    #[test]
    fn this_machines_interfaces_are_read() {
        let addrs = host_addresses().unwrap();
        assert!(
            addrs.contains(&IpAddr::V4(Ipv4Addr::LOCALHOST)),
            "{addrs:?}"
        );
    }
}
