//! Whom the pages answer: requests whose `Host` names this server, and, for what changes
//! something or streams a game (a WebSocket, a seat taken), pages of its own site.
//!
//! **Host.** A page of another site can reach a server on a private address by DNS
//! rebinding: its name (`evil.example`) first resolves to the attacker's machine, then to
//! 127.0.0.1, and the browser, seeing one origin, lets the page read the answers and seat
//! people. Every request says which name it went to (`Host`), and a rebound one says the
//! attacker's: so the pages answer only an address (an IP literal: no name to rebind),
//! `localhost`, and the names of `[http] hosts` (a reverse proxy's public name). Anything else
//! is answered `421 Misdirected Request` with the reason.
//!
//! **Origin.** Browsers send `Origin` with every WebSocket and every POST; it must name the
//! host the request went to. A request without one is not from a browser (curl, a script):
//! nothing for another site to abuse.

use axum::http::{header, HeaderMap};
use std::net::IpAddr;

/// The names the pages answer to, besides addresses and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct Hosts {
    /// Lowercase, without a port.
    names: Vec<String>,
    /// Every name is answered (the operator's address: `Web::bind_ops`).
    any: bool,
}

impl Hosts {
    /// `[http] hosts`.
    pub fn new(names: &[String]) -> Hosts {
        Hosts {
            names: names.iter().map(|n| n.to_ascii_lowercase()).collect(),
            any: false,
        }
    }

    /// Every name, as long as the request says one.
    pub fn any() -> Hosts {
        Hosts {
            names: Vec::new(),
            any: true,
        }
    }

    /// Whether a request whose headers are `headers` went to this server; or why not, for the
    /// answer.
    ///
    /// # Errors
    /// The `Host` is missing or names another server.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), HostRefusal> {
        let Some(host) = headers.get(header::HOST) else {
            return Err(HostRefusal::Missing);
        };
        let host = host.to_str().unwrap_or("");
        let name = name_of(host).to_ascii_lowercase();
        if self.any
            || name.parse::<IpAddr>().is_ok()
            || name == "localhost"
            || self.names.contains(&name)
        {
            Ok(())
        } else {
            Err(HostRefusal::Elsewhere {
                host: host.chars().take(80).collect(),
                names: self.names.clone(),
            })
        }
    }
}

/// Why a request is not answered: it is not for this server (`421 Misdirected Request`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostRefusal {
    /// No `Host` header.
    #[error("a request must say which server it is for (Host)")]
    Missing,
    /// A `Host` that is no address, not `localhost`, and none of `[http] hosts`.
    #[error(
        "this server answers as an address, localhost{}, not as {host:?}: a page of another site may not reach it under its own name; to serve that name (a reverse proxy's), add it to [http] hosts",
        or_names(.names)
    )]
    Elsewhere {
        /// The `Host` asked for (its first 80 characters).
        host: String,
        /// The names of `[http] hosts`.
        names: Vec<String>,
    },
}

/// `" or a.example or b.example"`: the configured names, after "localhost".
fn or_names(names: &[String]) -> String {
    names.iter().map(|n| format!(" or {n}")).collect()
}

/// The host part of a `Host` value or of an origin's authority: `[::1]:80` -> `::1`,
/// `example.org:8080` -> `example.org`.
fn name_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(ip, _)| ip);
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => authority,
    }
}

/// Whether a browser's request (one with `Origin`) comes from a page of this server: the
/// origin must name the host the request went to. A request without `Origin` is not a
/// browser's, and passes.
///
/// # Errors
/// The origin names another site (`403 Forbidden`).
pub fn same_origin(headers: &HeaderMap) -> Result<(), ForeignOrigin> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin = origin.to_str().unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    if !host.is_empty() && origin_host.eq_ignore_ascii_case(host) {
        Ok(())
    } else {
        Err(ForeignOrigin {
            origin: origin.chars().take(80).collect(),
        })
    }
}

/// Why a browser's request is refused: it comes from a page of another site. (One reason
/// only, so a struct: a request without `Host` has no origin of its own either.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a page of {origin:?} may not use this server's pages: only its own")]
pub struct ForeignOrigin {
    /// The `Origin` sent (its first 80 characters).
    pub origin: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(host) = host {
            h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        h
    }

    #[test]
    fn addresses_localhost_and_the_configured_names_are_answered() {
        let hosts = Hosts::new(&["Games.Example.org".to_string()]);
        for ok in [
            "127.0.0.1:8080",
            "10.1.2.3",
            "[::1]:8080",
            "[2001:db8::1]",
            "localhost:8080",
            "LOCALHOST",
            "games.example.org",
            "games.example.org:443",
        ] {
            assert!(hosts.check(&with(Some(ok), None)).is_ok(), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "games.example.org.evil.example",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "",
        ] {
            let e = hosts.check(&with(Some(bad), None)).unwrap_err();
            assert!(
                matches!(&e, HostRefusal::Elsewhere { host, .. } if host == bad),
                "{bad}: {e:?}"
            );
            assert!(e.to_string().contains("[http] hosts"), "{bad}: {e}");
        }
        assert_eq!(hosts.check(&with(None, None)), Err(HostRefusal::Missing));
        assert!(Hosts::default()
            .check(&with(Some("games.example.org"), None))
            .is_err());
    }

    #[test]
    fn the_refusals_say_what_they_said_as_text() {
        let hosts = Hosts::new(&["games.example.org".to_string(), "b.example".to_string()]);
        assert_eq!(
            hosts
                .check(&with(Some("evil.example:8080"), None))
                .unwrap_err()
                .to_string(),
            "this server answers as an address, localhost or games.example.org or b.example, not as \"evil.example:8080\": a page of another site may not reach it under its own name; to serve that name (a reverse proxy's), add it to [http] hosts"
        );
        assert_eq!(
            HostRefusal::Missing.to_string(),
            "a request must say which server it is for (Host)"
        );
        assert_eq!(
            same_origin(&with(Some("127.0.0.1:8080"), Some("http://evil.example")))
                .unwrap_err()
                .to_string(),
            "a page of \"http://evil.example\" may not use this server's pages: only its own"
        );
    }

    #[test]
    fn an_origin_must_be_the_hosts_own() {
        assert!(same_origin(&with(Some("127.0.0.1:8080"), None)).is_ok());
        assert!(same_origin(&with(Some("127.0.0.1:8080"), Some("http://127.0.0.1:8080"))).is_ok());
        assert!(same_origin(&with(
            Some("games.example.org"),
            Some("https://games.example.org")
        ))
        .is_ok());
        for bad in [
            "http://evil.example",
            "null",
            "http://127.0.0.1:9999",
            "file://",
        ] {
            let e = same_origin(&with(Some("127.0.0.1:8080"), Some(bad))).unwrap_err();
            assert_eq!(e.origin, bad);
            assert!(e.to_string().contains("may not use"), "{bad}: {e}");
        }
    }
}
