//! The `view` HTTP server: loopback only, one thread per request (a long solve never holds
//! up the page's other requests), JSON errors for every bad request.

use super::api::{error_json, parse_request, ViewRequest, Viewer};
use crate::cli::error::{CliError, Result};
use serde_json::Value;
use skinweights::Error;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tiny_http::{Header, Method, Request, Response, Server};

/// Largest request body accepted (a request is a few hundred bytes of JSON).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Requests handled at once; more get 503 instead of piling up threads.
const MAX_IN_FLIGHT: usize = 32;

/// Binds 127.0.0.1:`port` (0 = any free port) and returns the server and its port.
pub fn bind(port: u16) -> Result<(Server, u16)> {
    let server = Server::http(("127.0.0.1", port)).map_err(|e| CliError::Listen {
        port,
        reason: e.to_string(),
    })?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or_else(|| CliError::Listen {
            port,
            reason: "the server has no IP address".into(),
        })?;
    Ok((server, port))
}

/// Serves `page` at `/` and the API under `/api/` until the process is stopped.
pub fn serve(server: Server, port: u16, viewer: Arc<Viewer>, page: Arc<String>) {
    let in_flight = Arc::new(AtomicUsize::new(0));
    for request in server.incoming_requests() {
        if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            in_flight.fetch_sub(1, Ordering::SeqCst);
            let _ = request.respond(json_response(
                503,
                &serde_json::json!({"error": "the server is busy; try again"}),
            ));
            continue;
        }
        let (viewer, page, in_flight) = (viewer.clone(), page.clone(), in_flight.clone());
        std::thread::spawn(move || {
            handle(request, port, &viewer, &page);
            in_flight.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

fn handle(mut request: Request, port: u16, viewer: &Viewer, page: &str) {
    // Refuse other host names: a web page elsewhere must not reach this server through DNS
    // rebinding.
    let host_ok = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Host"))
        .is_some_and(|h| allowed_host(h.value.as_str(), port));
    if !host_ok {
        let _ = request.respond(json_response(
            403,
            &serde_json::json!({"error": "only http://127.0.0.1 and http://localhost are served"}),
        ));
        return;
    }
    // A page on another site can send simple cross-origin POSTs to loopback: refuse a
    // foreign Origin, and require the JSON content type (which such a page can only send
    // after a CORS preflight this server never grants).
    let header_value = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    let origin_ok = header_value("Origin").is_none_or(|o| allowed_origin(&o, port));
    let json_body = header_value("Content-Type").is_some_and(|c| {
        c.trim()
            .to_ascii_lowercase()
            .starts_with("application/json")
    });
    if !origin_ok {
        let _ = request.respond(json_response(
            403,
            &serde_json::json!({"error": "requests from other sites are refused"}),
        ));
        return;
    }
    let url = request.url().split('?').next().unwrap_or("").to_string();
    let response = match (request.method(), url.as_str()) {
        (Method::Get, "/" | "/index.html") => Response::from_string(page)
            .with_header(header("Content-Type", "text/html; charset=utf-8"))
            .with_header(header("Cache-Control", "no-store")),
        (Method::Get, "/favicon.ico") => Response::from_string("").with_status_code(204),
        (Method::Post, "/api/scene" | "/api/solve" | "/api/pose" | "/api/clip") if !json_body => {
            json_response(
                415,
                &serde_json::json!({"error": "send the request as Content-Type: application/json"}),
            )
        }
        (Method::Post, "/api/scene" | "/api/solve" | "/api/pose" | "/api/clip") => {
            match read_body(&mut request).and_then(|b| parse_request(&b)) {
                Ok(req) => answer(viewer, &url, &req),
                Err(e) => json_response(400, &error_json(&e)),
            }
        }
        (_, "/api/scene" | "/api/solve" | "/api/pose" | "/api/clip") => json_response(
            405,
            &serde_json::json!({"error": format!("{url} takes POST with a JSON body")}),
        ),
        _ => json_response(
            404,
            &serde_json::json!({"error": format!("no such page: {url}")}),
        ),
    };
    let _ = request.respond(response);
}

fn answer(viewer: &Viewer, url: &str, req: &ViewRequest) -> Response<std::io::Cursor<Vec<u8>>> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match url {
        "/api/scene" => viewer.scene_info(req),
        "/api/solve" => viewer.solve(req),
        "/api/clip" => viewer.clip(req),
        _ => viewer.pose(req),
    }));
    match result {
        Ok(Ok(v)) => json_response(200, &v),
        Ok(Err(e)) => json_response(400, &error_json(&e)),
        Err(_) => json_response(
            500,
            &serde_json::json!({"error": format!("internal error answering {url}; please report it")}),
        ),
    }
}

/// Whether a `Host` header names this server on loopback.
pub fn allowed_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost"]
        .iter()
        .any(|h| host == format!("{h}:{port}") || (port == 80 && host == *h))
}

/// Whether an `Origin` header is this server's own page: `http://127.0.0.1:PORT` or
/// `http://localhost:PORT`.
pub fn allowed_origin(origin: &str, port: u16) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|host| allowed_host(host, port))
}

fn read_body(request: &mut Request) -> Result<Vec<u8>> {
    if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_long());
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| Error::io("request body", e))?;
    if body.len() > MAX_BODY_BYTES {
        return Err(too_long());
    }
    Ok(body)
}

fn too_long() -> CliError {
    CliError::RequestTooLarge {
        max: MAX_BODY_BYTES,
    }
}

fn json_response(status: u16, value: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(value.to_string())
        .with_status_code(status)
        .with_header(header("Content-Type", "application/json"))
        .with_header(header("Cache-Control", "no-store"))
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

#[cfg(test)]
mod tests {
    use super::allowed_host;
    use crate::cli::error::CliError;

    #[test]
    fn only_loopback_host_names_are_served() {
        assert!(allowed_host("127.0.0.1:8765", 8765));
        assert!(allowed_host("localhost:8765", 8765));
        assert!(!allowed_host("127.0.0.1:8766", 8765));
        assert!(!allowed_host("evil.example:8765", 8765));
        assert!(!allowed_host("127.0.0.1.evil.example:8765", 8765));
        assert!(super::allowed_origin("http://127.0.0.1:8765", 8765));
        assert!(!super::allowed_origin("https://evil.example", 8765));
        assert!(!super::allowed_origin("null", 8765));
    }

    #[test]
    fn a_taken_port_and_a_long_body_are_typed_errors() {
        let (_server, port) = super::bind(0).unwrap();
        match super::bind(port) {
            Err(CliError::Listen { port: p, reason }) => {
                assert_eq!(p, port);
                assert!(!reason.is_empty());
            }
            other => panic!("{:?}", other.map(|(_, p)| p)),
        }
        assert!(matches!(
            super::too_long(),
            CliError::RequestTooLarge { max } if max == super::MAX_BODY_BYTES
        ));
    }
}
