//! The frame reader: one stream of bytes read into frames, for every Rust peer of the protocol
//! (the server's connections, the client library, the bridges). Compiled with the crate's
//! `tokio` feature: the rest of the core needs no runtime.
//!
//! It is the [`FrameScanner`] with the stream it reads from, in the shape of mini-redis's
//! `Connection::read_frame`: a complete frame in hand is returned without reading, "not enough
//! bytes yet" is a reason to read, never an error, and a clean end of the stream is `Ok(None)`.
//!
//! Reading is cancel-safe: the bytes of one read are handed to the scanner in the same poll
//! that reads them, so a [`FrameReader::read_frame`] dropped in a `select!` loses nothing. The
//! read buffer lives on the stack for that poll only, so a connection waiting for its peer
//! holds no read buffer (the server keeps thousands of idle ones).

use super::frame::{FrameError, FrameLimits, FrameScanner};
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;
use tokio::io::{AsyncRead, ReadBuf};

/// Bytes read from the stream at a time.
const READ_CHUNK: usize = 4096;

/// Reads frames from `R` (a socket, a socket's read half, a pipe).
#[derive(Debug)]
pub struct FrameReader<R> {
    stream: R,
    scanner: FrameScanner,
    reads: u64,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader of `stream` that enforces `limits` on every frame.
    pub fn new(stream: R, limits: FrameLimits) -> FrameReader<R> {
        FrameReader {
            stream,
            scanner: FrameScanner::new(limits),
            reads: 0,
        }
    }

    /// The next frame: `Ok(Some(Ok(bytes)))` for a message, `Ok(Some(Err(e)))` for input the
    /// scanner refused (the stream stays usable), `Ok(None)` when the stream ended (see
    /// [`FrameReader::mid_frame`] for whether it ended inside a message).
    ///
    /// # Errors
    /// What reading the stream returned.
    pub async fn read_frame(&mut self) -> std::io::Result<Option<Result<Vec<u8>, FrameError>>> {
        loop {
            if let Some(frame) = self.scanner.next_frame() {
                return Ok(Some(frame));
            }
            let read = poll_fn(|cx| {
                let mut chunk = [0u8; READ_CHUNK];
                let mut buf = ReadBuf::new(&mut chunk);
                match Pin::new(&mut self.stream).poll_read(cx, &mut buf) {
                    Poll::Ready(Ok(())) => {
                        self.scanner.push(buf.filled());
                        Poll::Ready(Ok(buf.filled().len()))
                    }
                    Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await?;
            if read == 0 {
                return Ok(None);
            }
            self.reads += 1;
        }
    }

    /// How many reads returned bytes so far. A frame returned when this has not changed since
    /// the last one arrived with it, in the same read: a caller that timestamps what it reads
    /// (the server's clocks) takes the time when this changes.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// Whether the stream stopped (or stops now) inside a message.
    pub fn mid_frame(&self) -> bool {
        self.scanner.mid_frame()
    }

    /// The stream, to write to it when it is both ways (a client's socket).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    const LIMITS: FrameLimits = FrameLimits {
        max_bytes: 64,
        max_depth: 4,
    };

    fn text(frame: Option<Result<Vec<u8>, FrameError>>) -> Option<Result<String, FrameError>> {
        frame.map(|f| f.map(|bytes| String::from_utf8(bytes).unwrap()))
    }

    #[tokio::test]
    async fn frames_split_and_coalesced_come_out_whole_and_the_end_is_none() {
        let (mut tx, rx) = tokio::io::duplex(8);
        let writer = tokio::spawn(async move {
            tx.write_all(b"((init a 1))((bo").await.unwrap();
            tx.write_all(b"ard XX)(rev 0))\n)x ((resign))")
                .await
                .unwrap();
        });
        let mut reader = FrameReader::new(rx, LIMITS);
        let mut got = Vec::new();
        while let Some(frame) = reader.read_frame().await.unwrap() {
            got.push(text(Some(frame)).unwrap());
        }
        writer.await.unwrap();
        assert_eq!(
            got,
            vec![
                Ok("((init a 1))".to_string()),
                Ok("((board XX)(rev 0))".to_string()),
                Err(FrameError::StrayClose),
                Err(FrameError::Garbage("x".to_string())),
                Ok("((resign))".to_string()),
            ]
        );
        assert!(!reader.mid_frame());
    }

    #[tokio::test]
    async fn an_end_inside_a_message_is_told() {
        let (mut tx, rx) = tokio::io::duplex(64);
        tx.write_all(b"((init a").await.unwrap();
        drop(tx);
        let mut reader = FrameReader::new(rx, LIMITS);
        assert!(text(reader.read_frame().await.unwrap()).is_none());
        assert!(reader.mid_frame());
    }

    #[tokio::test]
    async fn frames_of_one_read_share_it_and_a_dropped_read_loses_nothing() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut reader = FrameReader::new(rx, LIMITS);
        // Nothing to read yet: the read is abandoned, as a select! abandons it.
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(20), reader.read_frame());
        assert!(waited.await.is_err());
        tx.write_all(b"((a))((b))").await.unwrap();
        let first = text(reader.read_frame().await.unwrap());
        let after_first = reader.reads();
        let second = text(reader.read_frame().await.unwrap());
        assert_eq!(first, Some(Ok("((a))".into())));
        assert_eq!(second, Some(Ok("((b))".into())));
        assert_eq!(
            reader.reads(),
            after_first,
            "the second frame came with the first"
        );
        assert_eq!(after_first, 1);
        tx.write_all(b"((c))").await.unwrap();
        assert_eq!(
            text(reader.read_frame().await.unwrap()),
            Some(Ok("((c))".into()))
        );
        assert_eq!(reader.reads(), 2);
    }

    #[tokio::test]
    async fn limits_hold_and_the_stream_goes_on() {
        let (mut tx, rx) = tokio::io::duplex(256);
        let long = format!("(({}))((((((x))))))((ok))", "a".repeat(100));
        tx.write_all(long.as_bytes()).await.unwrap();
        drop(tx);
        let mut reader = FrameReader::new(rx, LIMITS);
        assert_eq!(
            text(reader.read_frame().await.unwrap()),
            Some(Err(FrameError::TooLarge(64)))
        );
        assert_eq!(
            text(reader.read_frame().await.unwrap()),
            Some(Err(FrameError::TooDeep(4)))
        );
        assert_eq!(
            text(reader.read_frame().await.unwrap()),
            Some(Ok("((ok))".into()))
        );
        assert!(text(reader.read_frame().await.unwrap()).is_none());
    }
}
