#!/usr/bin/python3
"""A stand-in for a vLLM server's /metrics, for the tests and the capture benchmark.

Replays the rows of a canonical metrics CSV (a simulated run's metrics.csv) as
Prometheus text, one row per `--row-s` seconds of wall time (accelerated replay
when --row-s < 1), holding the last row at the end. Every series gets the labels
a V1 server adds (engine="0", model_name=MODEL); process_start_time_seconds is the
time the (fake) process started.

Faults, switched on over HTTP while it runs (each answers 200 "ok"):
  GET /control/stall?s=S     the next /metrics answers after S seconds
  GET /control/fail?n=N      the next N /metrics answer HTTP 500
  GET /control/drop?n=N      the next N /metrics close the connection without an answer
  GET /control/garbage?n=N   the next N /metrics answer 200 with an HTML page, not Prometheus text
  GET /control/restart       counters restart from 0 and process_start_time_seconds changes
  GET /control/reset-series?name=N  only series N (a counter, e.g. vllm:num_preemptions_total)
                             restarts from 0
  GET /control/reset-tokens  only the token counters (vllm:prompt_tokens_total,
                             vllm:generation_tokens_total) restart from 0; the
                             other counters and process_start_time_seconds stay
  GET /control/churn?n=N     from now on, N more series of one family (fake:lora_info, one label
                             set each, as a label that changes per request set would give)
  GET /old-metrics           HTTP 307 to /metrics (as vLLM servers that mount the Prometheus app
                             answer /metrics with a 307 to /metrics/)
  GET /control/quit          exit 0
  GET /slots                 with --slots FILE (a llama-server run's slots.jsonl): the "slots"
                             array of the line for the current row; without it HTTP 501, as a
                             llama-server started with --no-slots answers
Options:
  --port P (0: any free port), --port-file F (the port is written there once listening),
  --pad-series N (N extra gauge series, to size the page), --model NAME, --slots FILE,
  --nan-series (one more gauge, fake:nan_gauge, always NaN: a value the server wrote as NaN).
Only the Python standard library (Debian's python3) is used.
"""
import argparse
import csv
import http.server
import json
import os
import socketserver
import sys
import threading
import time
import urllib.parse

MONOTONE = ("_total", "_count", "_sum", "_bucket")


def split_column(col):
    """'name{a="x"}' -> ('name', 'a="x"'); 'name' -> ('name', '')."""
    if "{" in col and col.endswith("}"):
        i = col.index("{")
        return col[:i], col[i + 1:-1]
    return col, ""


class Replay:
    def __init__(self, path, row_s, model, pad, slots_path=None, nan_series=False):
        self.nan_series = nan_series
        self.slots = None
        if slots_path:
            with open(slots_path) as f:
                self.slots = [json.loads(line)["slots"] for line in f if line.strip()]
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        self.header = rows[0][1:]
        self.rows = [[float(c) if c not in ("", "NaN") else None for c in r[1:]] for r in rows[1:]]
        self.row_s = row_s
        self.model = model
        self.pad = pad
        self.churn = 0
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.start_time = time.time()
        self.baseline = [0.0] * len(self.header)   # subtracted from counters after a restart
        self.stall_s = 0.0
        self.fail_n = 0
        self.garbage_n = 0
        self.drop_n = 0
        self.served = 0

    def row_index(self):
        i = int((time.monotonic() - self.t0) / self.row_s)
        return min(i, len(self.rows) - 1)

    def restart(self, only=None):
        with self.lock:
            row = self.rows[self.row_index()]
            for c, name in enumerate(self.header):
                base = split_column(name)[0]
                if base.endswith(MONOTONE) and row[c] is not None and (only is None or base in only):
                    self.baseline[c] = row[c]
            if only is None:
                self.start_time = time.time()

    def slots_page(self):
        """The /slots answer of the current row, or None without --slots."""
        if self.slots is None:
            return None
        with self.lock:
            return json.dumps(self.slots[min(self.row_index(), len(self.slots) - 1)]).encode()

    def page(self):
        with self.lock:
            row = self.rows[self.row_index()]
            out = []
            for c, name in enumerate(self.header):
                if row[c] is None:
                    continue
                base, labels = split_column(name)
                lab = 'engine="0",model_name="%s"' % self.model + ("," + labels if labels else "")
                v = row[c] - self.baseline[c]
                out.append("%s{%s} %r\n" % (base, lab, v))
            for k in range(self.pad):
                out.append('fake:pad_gauge{engine="0",model_name="%s",slot="%d"} %d\n' % (self.model, k, k))
            for k in range(self.churn):
                out.append('fake:lora_info{engine="0",model_name="%s",adapters="a%d"} 1\n' % (self.model, k))
            if self.nan_series:
                out.append('fake:nan_gauge{engine="0",model_name="%s"} NaN\n' % self.model)
            out.append("process_start_time_seconds %.2f\n" % self.start_time)
            self.served += 1
            return "".join(out).encode()


def make_handler(rp):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def reply(self, code, body, ctype="text/plain; version=0.0.4; charset=utf-8"):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            u = urllib.parse.urlparse(self.path)
            q = urllib.parse.parse_qs(u.query)
            if u.path == "/metrics":
                with rp.lock:
                    stall, rp.stall_s = rp.stall_s, 0.0
                    drop = rp.drop_n > 0
                    fail = not drop and rp.fail_n > 0
                    garbage = not drop and not fail and rp.garbage_n > 0
                    if drop:
                        rp.drop_n -= 1
                    elif fail:
                        rp.fail_n -= 1
                    elif garbage:
                        rp.garbage_n -= 1
                if stall:
                    time.sleep(stall)
                if drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if fail:
                    self.reply(500, b"internal error\n")
                    return
                if garbage:
                    self.reply(200, b"<html><body><h1>Welcome</h1></body></html>\n", "text/html")
                    return
                self.reply(200, rp.page())
            elif u.path == "/old-metrics":
                self.send_response(307)
                self.send_header("Location", "/metrics")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif u.path == "/slots":
                body = rp.slots_page()
                if body is None:
                    self.reply(501, b'{"error": {"code": 501, "message": "This server does not support slots endpoint."}}',
                               "application/json; charset=utf-8")
                else:
                    self.reply(200, body, "application/json; charset=utf-8")
            elif u.path == "/control/stall":
                rp.stall_s = float(q.get("s", ["2"])[0])
                self.reply(200, b"ok\n")
            elif u.path == "/control/fail":
                rp.fail_n = int(q.get("n", ["1"])[0])
                self.reply(200, b"ok\n")
            elif u.path == "/control/garbage":
                rp.garbage_n = int(q.get("n", ["1"])[0])
                self.reply(200, b"ok\n")
            elif u.path == "/control/drop":
                rp.drop_n = int(q.get("n", ["1"])[0])
                self.reply(200, b"ok\n")
            elif u.path == "/control/restart":
                rp.restart()
                self.reply(200, b"ok\n")
            elif u.path == "/control/reset-series":
                rp.restart(only=tuple(q.get("name", [])))
                self.reply(200, b"ok\n")
            elif u.path == "/control/reset-tokens":
                rp.restart(only=("vllm:prompt_tokens_total", "vllm:generation_tokens_total"))
                self.reply(200, b"ok\n")
            elif u.path == "/control/churn":
                with rp.lock:
                    rp.churn += int(q.get("n", ["100"])[0])
                self.reply(200, b"ok\n")
            elif u.path == "/control/quit":
                self.reply(200, b"ok\n")
                threading.Thread(target=self.server.shutdown, daemon=True).start()
            else:
                self.reply(404, b"not found\n")
    return H


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # a client that gave up (timeout) closes its end: not an error of the fake
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("metrics_csv")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--row-s", type=float, default=1.0, help="wall seconds per CSV row")
    ap.add_argument("--model", default="Qwen/Qwen2.5-7B-Instruct")
    ap.add_argument("--pad-series", type=int, default=0)
    ap.add_argument("--slots", help="slots.jsonl of a llama-server run: /slots answers its rows")
    ap.add_argument("--nan-series", action="store_true", help="add a gauge whose value is always NaN")
    a = ap.parse_args()
    rp = Replay(a.metrics_csv, a.row_s, a.model, a.pad_series, a.slots, a.nan_series)
    srv = Server(("127.0.0.1", a.port), make_handler(rp))
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(tmp, a.port_file)
    try:
        srv.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
