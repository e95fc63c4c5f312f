//! A real nats-server for the NATS tests: started on a free loopback
//! port (the server picks it and writes it to a ports file), optionally
//! from a configuration (a small `max_payload`, users, a token), alone or
//! as a cluster of nodes routed to each other; killed when dropped, and
//! restarted on the ports it had (a server that comes back, as clients
//! see it); put into lame-duck mode. The binary is
//! `TOOLC_TEST_NATS_SERVER` (scripts/test installs it): a test without it
//! fails, it never skips.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::TempDir;

/// The nats-server binary the tests run.
pub fn binary() -> PathBuf {
    let path = std::env::var_os("TOOLC_TEST_NATS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        panic!("TOOLC_TEST_NATS_SERVER is not set: run the tests with scripts/test, which installs nats-server")
    });
    assert!(
        path.is_file(),
        "{} is missing: run the tests with scripts/test, which installs nats-server",
        path.display()
    );
    path
}

/// One running nats-server.
pub struct NatsServer {
    child: Option<Child>,
    /// Its client URL, `nats://127.0.0.1:PORT`.
    pub url: String,
    /// Its cluster (route) URL, when it is a cluster's node.
    pub route: Option<String>,
    /// Its monitoring URL, when it is a cluster's node.
    monitor: Option<String>,
    /// What it was started with, to start it again.
    config: String,
    node: Option<usize>,
    routes: Vec<String>,
    /// Its configuration and ports file, removed with it.
    dir: TempDir,
}

impl NatsServer {
    /// A server with the defaults.
    pub fn start() -> NatsServer {
        NatsServer::with_config("")
    }

    /// A server with `config` (nats-server's configuration syntax, e.g.
    /// `max_payload: 4096` or an `authorization { ... }` block) added to
    /// a loopback listener on a port it picks.
    pub fn with_config(config: &str) -> NatsServer {
        NatsServer::spawn(config, None, &[])
    }

    /// A cluster of `nodes` servers routed to each other, all on loopback.
    pub fn cluster(nodes: usize) -> Vec<NatsServer> {
        let mut servers: Vec<NatsServer> = Vec::new();
        // Each later node routes to the first; the first learns of the
        // others from their routes (a full mesh forms by gossip).
        for n in 0..nodes {
            let seed = servers.first().and_then(|first| first.route.clone());
            let routes: Vec<String> = seed.into_iter().collect();
            servers.push(NatsServer::spawn("", Some(n), &routes));
        }
        wait_for_routes(&servers);
        servers
    }

    fn spawn(config: &str, node: Option<usize>, routes: &[String]) -> NatsServer {
        // One directory per server, though a test may start several.
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = TempDir::new(&format!("nats-server-{n}"));
        let mut server = NatsServer {
            child: None,
            url: String::new(),
            route: None,
            monitor: None,
            config: config.to_string(),
            node,
            routes: routes.to_vec(),
            dir,
        };
        server.launch();
        server
    }

    /// Starts the process: on the ports it had if it ran before, else on
    /// ports it picks (then read from its ports file).
    fn launch(&mut self) {
        let port_of = |url: Option<&str>| {
            url.and_then(|url| url.rsplit(':').next())
                .map_or("-1".to_string(), str::to_string)
        };
        let known = (!self.url.is_empty()).then_some(self.url.as_str());
        let mut text = format!("listen: 127.0.0.1:{}\n", port_of(known));
        if let Some(node) = self.node {
            text.push_str(&format!(
                "server_name: toolc-test-node-{node}\nhttp: 127.0.0.1:{}\ncluster {{\n  name: toolc-test\n  listen: 127.0.0.1:{}\n  routes: [{}]\n}}\n",
                port_of(self.monitor.as_deref()),
                port_of(self.route.as_deref()),
                self.routes.join(", ")
            ));
        }
        text.push_str(&self.config);
        let config_path = self.dir.write("nats.conf", text);
        let child = Command::new(binary())
            .arg("-c")
            .arg(&config_path)
            .arg("--ports_file_dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nats-server");
        let ports = wait_for_ports(self.dir.path(), child.id());
        self.child = Some(child);
        let first = |name: &str| {
            ports[name]
                .get(0)
                .and_then(|url| url.as_str())
                .map(str::to_string)
        };
        self.url = first("nats").expect("a client URL in the ports file");
        self.route = first("cluster");
        self.monitor = first("monitoring");
    }

    /// Starts the server again (after [`NatsServer::kill`]) on the same
    /// ports, with the same configuration: to its clients, the server
    /// came back.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "restart a server that was killed");
        self.launch();
    }

    /// Puts the server into lame-duck mode (SIGUSR2, what
    /// `nats-server --signal ldm=PID` sends): it tells its clients it is
    /// going away, then closes them over its `lame_duck_duration`.
    pub fn lame_duck(&self) {
        let pid = self.child.as_ref().expect("a running server").id();
        // SAFETY: a plain kill(2) of the server this test started.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGUSR2) }, 0);
    }

    /// The number of client connections named `name` it holds now, as
    /// its monitoring endpoint (`/connz`) says (cluster nodes only).
    pub fn connections_named(&self, name: &str) -> usize {
        let monitor = self.monitor.as_deref().expect("a cluster node");
        http_get(monitor, "/connz")
            .and_then(|body| serde_json::from_str::<serde_json::Value>(&body).ok())
            .and_then(|connz| connz["connections"].as_array().cloned())
            .map_or(0, |connections| {
                connections.iter().filter(|c| c["name"] == name).count()
            })
    }

    /// Its client port.
    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .expect("a port in the URL")
    }

    /// Kills the server now (SIGKILL), as a crashed node.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The server's ports file, once it is written (at most 10 s).
fn wait_for_ports(dir: &Path, pid: u32) -> serde_json::Value {
    let path = dir.join(format!("nats-server_{pid}.ports"));
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(ports) = serde_json::from_str::<serde_json::Value>(&text)
        {
            return ports;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nats-server wrote no ports file {} in 10 s",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until every node has a route to every other (at most 10 s), as
/// each node's monitoring endpoint (`/routez`) says.
fn wait_for_routes(servers: &[NatsServer]) {
    let started = Instant::now();
    for server in servers {
        let monitor = server
            .monitor
            .as_deref()
            .expect("a cluster node listens for monitoring");
        loop {
            let routes = http_get(monitor, "/routez")
                .and_then(|body| serde_json::from_str::<serde_json::Value>(&body).ok())
                .and_then(|routez| routez["num_routes"].as_u64())
                .unwrap_or(0);
            if routes as usize >= servers.len() - 1 {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the NATS cluster did not form in 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The body of `GET path` from `base` (`http://127.0.0.1:PORT`).
fn http_get(base: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let address = base.strip_prefix("http://")?;
    let mut stream = std::net::TcpStream::connect(address).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {address}\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
}

#[test]
fn a_cluster_of_three_forms_on_loopback() {
    let nodes = NatsServer::cluster(3);
    let ports: std::collections::BTreeSet<u16> = nodes.iter().map(NatsServer::port).collect();
    assert_eq!(ports.len(), 3);
}

#[test]
fn a_server_starts_on_a_free_loopback_port_and_takes_connections() {
    let server = NatsServer::start();
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("connect to nats-server");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut greeting = [0u8; 5];
    std::io::Read::read_exact(&mut stream, &mut greeting).expect("the server's INFO");
    assert_eq!(&greeting, b"INFO ");
}
