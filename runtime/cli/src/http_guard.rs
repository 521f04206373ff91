//! Who may talk to gg's HTTP servers (`gg mcp --http`, `gg console`): the
//! same checks in front of both, before any route runs.
//!
//! - **Host.** A browser page on any site can reach a loopback port once its
//!   name resolves there (DNS rebinding); its requests still carry that
//!   name in `Host`. Only this server's own loopback names are answered
//!   (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`) and whatever the
//!   operator allows with `--allow-host` (a reverse proxy's public name).
//! - **Origin.** A browser names the page that made a request; a request
//!   from a page of another origin is refused. Requests without `Origin`
//!   (command-line clients, SDKs) pass this check. `--allow-origin` adds
//!   origins (`https://gg.example.com`).
//! - **Token.** With a token configured (`--token-file`, or the `GG_TOKEN`
//!   environment variable), every request must carry it:
//!   `Authorization: Bearer TOKEN`, or (the console's page, which a browser
//!   loads without headers) the `gg_token` cookie that `/?token=TOKEN` sets.
//!   Tokens are compared in constant time.
//!
//! Every response, refusals and unknown routes included, also tells a
//! browser what it may do with it ([`SECURITY_HEADERS`]): run and style
//! only this server's own files, frame it nowhere, trust no guessed
//! content type, send no referrer. The console's page shows what programs
//! chose (memory bodies, transcripts); these keep a slip in its escaping
//! from becoming a script.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, Response, StatusCode};
use axum::middleware::Next;

/// The environment variable a token may come from instead of a file.
pub const TOKEN_ENV: &str = "GG_TOKEN";

/// The cookie the console's page carries its token in.
const TOKEN_COOKIE: &str = "gg_token";

/// What the operator configured: extra names and origins, and the token.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AccessArgs {
    /// Also answer requests whose `Host` is this name (`name` or
    /// `name:port`), such as a TLS reverse proxy's public name. Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Also answer browser requests from this origin
    /// (`https://gg.example.com`). Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Require this bearer token (the file's first line) on every request.
    /// The `GG_TOKEN` environment variable does the same.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<std::path::PathBuf>,
}

/// [`AccessArgs`] read and checked: what a server's [`Guard`] is built from.
#[derive(Debug, Clone, Default)]
pub struct Access {
    allow_hosts: Vec<String>,
    allow_origins: Vec<String>,
    token: Option<Arc<str>>,
}

impl AccessArgs {
    /// Reads the token (file, else `GG_TOKEN`). Fails, naming the file and
    /// what to fix, when the token file cannot be read or holds no token.
    pub fn resolve(&self) -> Result<Access, String> {
        let token = match &self.token_file {
            Some(path) => Some(read_token(path)?),
            None => match std::env::var(TOKEN_ENV) {
                Ok(token) if !token.trim().is_empty() => Some(token.trim().to_string()),
                _ => None,
            },
        };
        Ok(Access {
            allow_hosts: self.allow_hosts.clone(),
            allow_origins: self.allow_origins.clone(),
            token: token.map(Arc::from),
        })
    }
}

/// The checks for one bound server.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Accepted `Host` values, lowercase.
    hosts: Vec<String>,
    /// Accepted `Origin` values, lowercase, no trailing slash.
    origins: Vec<String>,
    token: Option<Arc<str>>,
    /// What the refusals name as this server.
    bound: SocketAddr,
}

impl Guard {
    /// The guard for a server bound to `bound` under `access`.
    pub fn new(bound: SocketAddr, access: &Access) -> Guard {
        let port = bound.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
            bound.to_string(),
        ];
        if port == 80 {
            hosts.extend(["127.0.0.1", "localhost", "[::1]"].map(String::from));
        }
        hosts.extend(
            access
                .allow_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase()),
        );
        let mut origins: Vec<String> = hosts
            .iter()
            .take(4)
            .map(|h| format!("http://{h}"))
            .collect();
        origins.extend(
            access
                .allow_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()),
        );
        Guard {
            hosts,
            origins,
            token: access.token.clone(),
            bound,
        }
    }

    /// Whether requests must carry a token.
    pub fn requires_token(&self) -> bool {
        self.token.is_some()
    }

    /// Checks one request's headers (and, for the console's page, its
    /// query): `Ok` to serve it, or the response that refuses it.
    fn check(&self, headers: &HeaderMap, query: Option<&str>) -> Result<(), Refused> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| h.trim().to_ascii_lowercase());
        match host {
            Some(host) if self.hosts.contains(&host) => {}
            Some(host) => {
                return Err(Refused::Forbidden(format!(
                    "gg refused the request: its Host `{}` is not this server ({}); \
                         a name of your own (a reverse proxy's) needs --allow-host",
                    printable(&host),
                    self.bound
                )))
            }
            None => {
                return Err(Refused::Forbidden(
                    "gg refused the request: it has no Host header".to_string(),
                ))
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("").trim().to_ascii_lowercase();
            if !self.origins.contains(&origin) {
                return Err(Refused::Forbidden(format!(
                    "gg refused the request: a page of origin `{}` may not call this \
                         server; allow it with --allow-origin",
                    printable(&origin)
                )));
            }
        }
        if let Some(token) = &self.token {
            let offered = bearer(headers)
                .or_else(|| cookie(headers, TOKEN_COOKIE))
                .or_else(|| query.and_then(query_token));
            if !offered.is_some_and(|offered| same_secret(offered.as_bytes(), token.as_bytes())) {
                return Err(Refused::Unauthorized);
            }
        }
        Ok(())
    }
}

/// The axum middleware: refuses what [`Guard::check`] refuses. A page
/// request that carried the token in its query (`/?token=…`) gets it back
/// as an HTTP-only, same-site cookie and is redirected to the clean URL, so
/// the token leaves the address bar and the page's own requests carry it.
pub async fn enforce(
    axum::extract::State(guard): axum::extract::State<Arc<Guard>>,
    request: Request<Body>,
    next: Next,
) -> Response<Body> {
    let query = request.uri().query().map(str::to_string);
    if let Err(refused) = guard.check(request.headers(), query.as_deref()) {
        return refused.into_response();
    }
    if guard.requires_token() && request.method() == axum::http::Method::GET {
        if let Some(token) = query.as_deref().and_then(query_token) {
            let path = request.uri().path().to_string();
            return Response::builder()
                .status(StatusCode::SEE_OTHER)
                .header(header::LOCATION, path)
                .header(
                    header::SET_COOKIE,
                    format!("{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"),
                )
                .body(Body::empty())
                .expect("a redirect");
        }
    }
    next.run(request).await
}

/// The headers on every response of both servers. The console's page is
/// `index.html`, `style.css` and JavaScript modules, all from this server,
/// with no inline script or style; it fetches `/api/` and listens to
/// `/api/events`. Nothing else is allowed.
pub const SECURITY_HEADERS: &[(&str, &str)] = &[
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
         connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

/// The axum middleware that puts [`SECURITY_HEADERS`] on a response.
async fn secure(request: Request<Body>, next: Next) -> Response<Body> {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(
            header::HeaderName::from_static(name),
            header::HeaderValue::from_static(value),
        );
    }
    response
}

/// Binds `addr`, puts the guard for `access` in front of every route of
/// `router` and [`SECURITY_HEADERS`] on every response, calls `ready`
/// with the bound address (port 0 resolved) and serves until the server
/// fails.
pub async fn serve(
    addr: SocketAddr,
    access: &Access,
    router: axum::Router,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let guard = Arc::new(Guard::new(bound, access));
    let router = router
        .layer(axum::middleware::from_fn_with_state(guard, enforce))
        .layer(axum::middleware::from_fn(secure));
    ready(bound);
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("the server on {bound} failed: {e}"))
}

/// Why a request was refused.
#[derive(Debug)]
enum Refused {
    /// A Host or Origin that is not this server's (403, with why).
    Forbidden(String),
    /// No token, or the wrong one (401).
    Unauthorized,
}

impl Refused {
    fn into_response(self) -> Response<Body> {
        let (status, message) = match self {
            Refused::Forbidden(message) => (StatusCode::FORBIDDEN, message),
            Refused::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "gg refused the request: this server requires its token \
                 (Authorization: Bearer TOKEN)"
                    .to_string(),
            ),
        };
        let mut response = Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8");
        if status == StatusCode::UNAUTHORIZED {
            response = response.header(header::WWW_AUTHENTICATE, "Bearer");
        }
        response
            .body(Body::from(message + "\n"))
            .expect("a refusal")
    }
}

/// At most 200 characters of a header a client chose, without control
/// characters.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(200).collect()
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
}

fn query_token(query: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == "token")
        .map(|(_, value)| value.to_string())
}

/// Compares two secrets in time that depends only on their lengths.
pub(crate) fn same_secret(offered: &[u8], expected: &[u8]) -> bool {
    if offered.len() != expected.len() {
        return false;
    }
    offered
        .iter()
        .zip(expected)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

fn read_token(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(format!(
            "the token file {} is empty; put the token on its first line",
            path.display()
        ));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "the token in {} has spaces or non-ASCII characters; use letters, digits and punctuation",
            path.display()
        ));
    }
    Ok(token)
}

/// Reads a listening address: `HOST:PORT` where HOST is a loopback IP
/// (`127.0.0.1`, `::1` in brackets) or `localhost`. Other addresses are
/// refused: gg's servers are for this machine (put a TLS reverse proxy in
/// front to serve others).
pub fn loopback_addr(text: &str, flag: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    let resolved = match text.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case("localhost") => {
            format!("127.0.0.1:{port}")
        }
        _ => text.to_string(),
    };
    let addr: SocketAddr = resolved.parse().map_err(|_| {
        format!("{flag} takes HOST:PORT on this machine (127.0.0.1:8765, localhost:0, [::1]:8765), got `{text}`")
    })?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "{flag} takes a loopback address (127.0.0.1, localhost or ::1), got {addr}; \
             to serve other machines put a TLS reverse proxy in front (see the README)"
        ));
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        map
    }

    fn guard(token: Option<&str>) -> Guard {
        let access = Access {
            token: token.map(Arc::from),
            ..Access::default()
        };
        Guard::new("127.0.0.1:8765".parse().unwrap(), &access)
    }

    #[test]
    fn only_this_servers_names_and_origins_pass() {
        let g = guard(None);
        assert!(g
            .check(&headers(&[("host", "127.0.0.1:8765")]), None)
            .is_ok());
        assert!(g
            .check(&headers(&[("host", "LOCALHOST:8765")]), None)
            .is_ok());
        assert!(g
            .check(&headers(&[("host", "evil.example")]), None)
            .is_err());
        assert!(g
            .check(&headers(&[("host", "127.0.0.1:9999")]), None)
            .is_err());
        assert!(g.check(&headers(&[]), None).is_err());
        let ok = [
            ("host", "127.0.0.1:8765"),
            ("origin", "http://localhost:8765"),
        ];
        assert!(g.check(&headers(&ok), None).is_ok());
        let bad = [
            ("host", "127.0.0.1:8765"),
            ("origin", "http://evil.example"),
        ];
        assert!(g.check(&headers(&bad), None).is_err());
        let null = [("host", "127.0.0.1:8765"), ("origin", "null")];
        assert!(g.check(&headers(&null), None).is_err());
    }

    #[test]
    fn allowed_names_and_origins_pass() {
        let access = AccessArgs {
            allow_hosts: vec!["gg.example.com".into()],
            allow_origins: vec!["https://gg.example.com/".into()],
            token_file: None,
        };
        let g = Guard::new(
            "127.0.0.1:8765".parse().unwrap(),
            &access.resolve().unwrap(),
        );
        let ok = [
            ("host", "gg.example.com"),
            ("origin", "https://gg.example.com"),
        ];
        assert!(g.check(&headers(&ok), None).is_ok());
    }

    #[test]
    fn a_token_is_required_by_header_cookie_or_query() {
        let g = guard(Some("s3cret"));
        let host = ("host", "127.0.0.1:8765");
        assert!(g.check(&headers(&[host]), None).is_err());
        assert!(g
            .check(&headers(&[host, ("authorization", "Bearer s3cret")]), None)
            .is_ok());
        assert!(g
            .check(&headers(&[host, ("authorization", "bearer s3cret")]), None)
            .is_ok());
        assert!(g
            .check(&headers(&[host, ("authorization", "Bearer s3cres")]), None)
            .is_err());
        assert!(g
            .check(&headers(&[host, ("authorization", "Bearer s3cret2")]), None)
            .is_err());
        assert!(g
            .check(&headers(&[host, ("cookie", "a=b; gg_token=s3cret")]), None)
            .is_ok());
        assert!(g.check(&headers(&[host]), Some("token=s3cret")).is_ok());
        assert!(g.check(&headers(&[host]), Some("token=nope")).is_err());
    }

    #[test]
    fn addresses_are_loopback_and_localhost_is_one() {
        assert_eq!(
            loopback_addr("localhost:0", "--http").unwrap(),
            "127.0.0.1:0".parse().unwrap()
        );
        assert!(loopback_addr("[::1]:80", "--http").is_ok());
        let e = loopback_addr("0.0.0.0:80", "--http").unwrap_err();
        assert!(e.contains("loopback"), "{e}");
        let e = loopback_addr("nonsense", "--http").unwrap_err();
        assert!(e.contains("HOST:PORT"), "{e}");
    }
}
