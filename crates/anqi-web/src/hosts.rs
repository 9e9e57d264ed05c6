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
}

impl Hosts {
    /// `[http] hosts`.
    pub fn new(names: &[String]) -> Hosts {
        Hosts {
            names: names.iter().map(|n| n.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether a request whose headers are `headers` went to this server; or why not, for the
    /// answer.
    ///
    /// # Errors
    /// The `Host` is missing or names another server.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let Some(host) = headers.get(header::HOST) else {
            return Err("a request must say which server it is for (Host)".into());
        };
        let host = host.to_str().unwrap_or("");
        let name = name_of(host).to_ascii_lowercase();
        if name.parse::<IpAddr>().is_ok() || name == "localhost" || self.names.contains(&name) {
            Ok(())
        } else {
            Err(format!(
                "this server answers as an address, localhost{}, not as {:?}: a page of another site may not reach it under its own name; to serve that name (a reverse proxy's), add it to [http] hosts",
                self.names
                    .iter()
                    .map(|n| format!(" or {n}"))
                    .collect::<String>(),
                host.chars().take(80).collect::<String>()
            ))
        }
    }
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
/// The origin names another site, with the text of the refusal.
pub fn same_origin(headers: &HeaderMap) -> Result<(), String> {
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
        Err(format!(
            "a page of {:?} may not use this server's pages: only its own",
            origin.chars().take(80).collect::<String>()
        ))
    }
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
            assert!(e.contains("[http] hosts"), "{bad}: {e}");
        }
        assert!(hosts.check(&with(None, None)).is_err());
        assert!(Hosts::default()
            .check(&with(Some("games.example.org"), None))
            .is_err());
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
            assert!(e.contains("may not use"), "{bad}: {e}");
        }
    }
}
