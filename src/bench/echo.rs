//! The floor of the server's figures: a raw echo server written with tokio, on the same kind of
//! runtime and with the same socket options as `anqi serve` (TCP_NODELAY), that sends back every
//! byte it reads. `anqi bench` runs it as a child process (`anqi bench-echo`), like the server.

use anyhow::{Context, Result};
use std::io::Write;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// The echo server of `anqi bench`'s floors, started by it.
#[derive(clap::Args, Debug)]
#[command(hide = true)]
pub struct EchoArgs {
    /// Address to listen on; port 0 picks a free port, printed as `listening on HOST:PORT`.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    pub listen: String,
}

/// Serves until this process is killed.
///
/// # Errors
/// When it cannot listen.
pub fn run(args: &EchoArgs) -> Result<()> {
    // The clients and the echo server hold thousands of connections.
    anqi_server::sys::raise_descriptor_limit();
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async {
        let listener = TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        println!("listening on {}", listener.local_addr()?);
        std::io::stdout().flush()?;
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(echo(stream));
                }
                // Out of descriptors, most likely: the client sees its connection refused.
                Err(e) => eprintln!("anqi bench-echo: accept: {e}"),
            }
        }
    })
}

/// Sends back what it reads until the peer closes. An idle connection holds no buffer (the
/// bytes are read into the stack only once they are there), so the floor of memory per
/// connection is the socket and the task alone.
async fn echo(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut stream = stream;
    loop {
        if stream.readable().await.is_err() {
            return;
        }
        let data = {
            let mut buf = [0u8; 4096];
            match stream.try_read(&mut buf) {
                Ok(0) => return,
                Ok(n) => buf[..n].to_vec(),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(_) => return,
            }
        };
        if stream.write_all(&data).await.is_err() {
            return;
        }
    }
}
