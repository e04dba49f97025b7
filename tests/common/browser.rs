//! A real browser for the tests: headless Chromium (Debian's `chromium`, installed by
//! `make test-deps`) driven through the DevTools protocol over a pipe
//! (`--remote-debugging-pipe`: commands on the browser's fd 3, answers and events on its
//! fd 4, each a JSON text ended by a NUL byte). A shell `exec` gives the browser our
//! stdin pipe as fd 3 and our stdout pipe as fd 4, so no `unsafe` is needed.
//!
//! What a page logs is collected from the protocol's events: `Runtime.consoleAPICalled`
//! (console.log/error/…), `Runtime.exceptionThrown` and `Log.entryAdded` (the browser's
//! own messages: a resource that failed to load, a Content Security Policy violation).
//! Every session gets a fresh profile directory, removed at the end.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::launcher::require_tool;

/// How long one protocol command may take (a page load on 2 busy cores included).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(90);

/// A running headless Chromium.
pub struct Browser {
    child: Child,
    to: ChildStdin,
    from: Receiver<Value>,
    next_id: u64,
    /// Events received while waiting for answers, in order.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// One tab, attached in flat mode.
pub struct Tab {
    /// The protocol session of the tab.
    pub session: String,
}

impl Browser {
    /// Starts Chromium (fails the test when it is missing).
    pub fn start() -> Browser {
        let chromium = require_tool("chromium", "chromium");
        let profile = super::scratch_dir_in("h5perf-chromium-", &std::env::temp_dir());
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>&2")
            .arg(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        let to = child.stdin.take().expect("the command pipe");
        let mut out = child.stdout.take().expect("the answer pipe");
        let (tx, from) = channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 65536];
            loop {
                let n = match out.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                buf.extend_from_slice(&chunk[..n]);
                while let Some(end) = buf.iter().position(|&b| b == 0) {
                    let msg: Vec<u8> = buf.drain(..=end).collect();
                    let v: Value = match serde_json::from_slice(&msg[..msg.len() - 1]) {
                        Ok(v) => v,
                        Err(e) => panic!("the browser sent malformed JSON: {e}"),
                    };
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        Browser {
            child,
            to,
            from,
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends `method` with `params` (to the tab `session`, or to the browser) and
    /// returns its result; fails the test on a protocol error or a timeout.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).expect("JSON");
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .and_then(|()| self.to.flush())
            .unwrap_or_else(|e| panic!("{method}: cannot write to the browser: {e}"));
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(v) if v["id"] == id => {
                    if let Some(e) = v.get("error") {
                        panic!("{method}: the browser answers {e}");
                    }
                    return v["result"].clone();
                }
                Ok(v) => self.events.push(v),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{method}: no answer in {COMMAND_TIMEOUT:?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("{method}: the browser has gone"),
            }
        }
    }

    /// Waits up to `timeout` for the event `method` of `session`.
    fn wait_event(&mut self, session: &str, method: &str, timeout: Duration) -> bool {
        let seen = |v: &Value| v["method"] == method && v["sessionId"] == session;
        if self.events.iter().any(seen) {
            return true;
        }
        let deadline = Instant::now() + timeout;
        while let Ok(v) = self
            .from
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            let hit = seen(&v);
            self.events.push(v);
            if hit {
                return true;
            }
        }
        false
    }

    /// Collects the events that arrive within `d`.
    fn drain(&mut self, d: Duration) {
        let deadline = Instant::now() + d;
        while let Ok(v) = self
            .from
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.events.push(v);
        }
    }

    /// Opens a new tab of `width` × `height` CSS pixels with the console and log
    /// events on, loads `file` and waits for its load event (and a second for late
    /// messages).
    pub fn open(&mut self, file: &Path, width: u32, height: u32) -> Tab {
        let t = self.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let target = t["targetId"].as_str().expect("targetId").to_string();
        let a = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        let session = a["sessionId"].as_str().expect("sessionId").to_string();
        let s = Some(session.as_str());
        for m in ["Runtime.enable", "Log.enable", "Page.enable"] {
            self.call(s, m, json!({}));
        }
        self.call(
            s,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        let url = format!(
            "file://{}",
            file.canonicalize().expect("the page exists").display()
        );
        let nav = self.call(s, "Page.navigate", json!({"url": url}));
        assert!(nav.get("errorText").is_none(), "loading {url}: {nav}");
        assert!(
            self.wait_event(&session, "Page.loadEventFired", COMMAND_TIMEOUT),
            "{url} did not finish loading"
        );
        self.drain(Duration::from_secs(1));
        Tab { session }
    }

    /// Everything the tab's page logged: console messages of any level, uncaught
    /// exceptions and the browser's log entries, as `kind: text` lines.
    pub fn messages(&mut self, tab: &Tab) -> Vec<String> {
        self.drain(Duration::from_millis(200));
        self.events
            .iter()
            .filter(|v| v["sessionId"] == tab.session.as_str())
            .filter_map(|v| {
                let p = &v["params"];
                match v["method"].as_str()? {
                    "Runtime.consoleAPICalled" => Some(format!(
                        "console.{}: {}",
                        p["type"].as_str().unwrap_or("?"),
                        p["args"]
                            .as_array()
                            .map(|a| a
                                .iter()
                                .map(|x| x["value"].to_string())
                                .collect::<Vec<_>>()
                                .join(" "))
                            .unwrap_or_default()
                    )),
                    "Runtime.exceptionThrown" => {
                        Some(format!("exception: {}", p["exceptionDetails"]))
                    }
                    "Log.entryAdded" => Some(format!(
                        "log.{} ({}): {}",
                        p["entry"]["level"].as_str().unwrap_or("?"),
                        p["entry"]["source"].as_str().unwrap_or("?"),
                        p["entry"]["text"].as_str().unwrap_or("")
                    )),
                    _ => None,
                }
            })
            .collect()
    }

    /// The value of the JavaScript expression `expr` in the tab (awaited when it is a
    /// promise), returned by value; fails the test on an exception.
    pub fn eval(&mut self, tab: &Tab, expr: &str) -> Value {
        let r = self.call(
            Some(&tab.session),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("evaluating {expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// A PNG screenshot of the tab's viewport, base64-encoded.
    pub fn screenshot(&mut self, tab: &Tab) -> String {
        let r = self.call(
            Some(&tab.session),
            "Page.captureScreenshot",
            json!({"format": "png"}),
        );
        r["data"].as_str().expect("screenshot data").to_string()
    }

    /// The tab printed to PDF on A4 paper with 12 mm margins, base64-encoded.
    pub fn print_a4(&mut self, tab: &Tab) -> String {
        let mm = 1.0 / 25.4;
        let r = self.call(
            Some(&tab.session),
            "Page.printToPDF",
            json!({"paperWidth": 210.0 * mm, "paperHeight": 297.0 * mm,
                   "marginTop": 12.0 * mm, "marginBottom": 12.0 * mm,
                   "marginLeft": 12.0 * mm, "marginRight": 12.0 * mm,
                   "printBackground": true, "preferCSSPageSize": true}),
        );
        r["data"].as_str().expect("PDF data").to_string()
    }
}

impl Drop for Browser {
    /// Closes the browser (Browser.close), or kills it after 10 s.
    fn drop(&mut self) {
        self.next_id += 1;
        let msg = format!("{{\"id\":{},\"method\":\"Browser.close\"}}\0", self.next_id);
        let _ = self.to.write_all(msg.as_bytes());
        let _ = self.to.flush();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
