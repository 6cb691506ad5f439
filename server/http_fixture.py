"""A small HTTP server for tests of URL inputs, on 127.0.0.1 and a free port.

Usage: python3 http_fixture.py ROOT PORT_FILE
Writes its port to PORT_FILE once it listens, then serves until killed:
  /media/NAME          the file ROOT/NAME (404 when absent)
  /redirect?to=URL     302 to URL
  /stall               200 with a length of 1 MB, 16 bytes, then nothing for a minute
  /sized/N             N bytes with a Content-Length
  /unsized/N           N bytes without one (the connection's end marks the end)
  /status/N            an empty answer with HTTP status N
"""

import http.server
import os
import sys
import time
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."

    def log_message(self, *args):
        pass

    def _bytes(self, count, sized):
        self.send_response(200)
        if sized:
            self.send_header("Content-Length", str(count))
        self.end_headers()
        block = b"\0" * 65536
        while count > 0:
            chunk = block[:min(count, len(block))]
            try:
                self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                return
            count -= len(chunk)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if parts[0] == "media" and len(parts) == 2:
            path = os.path.join(self.root, parts[1])
            if not os.path.isfile(path):
                self.send_error(404)
                return
            with open(path, "rb") as media:
                body = media.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif parts[0] == "redirect":
            self.send_response(302)
            self.send_header("Location", urllib.parse.parse_qs(url.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts[0] == "stall":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.write(b"\0" * 16)
            self.wfile.flush()
            time.sleep(60)
        elif parts[0] == "sized" and len(parts) == 2:
            self._bytes(int(parts[1]), sized=True)
        elif parts[0] == "unsized" and len(parts) == 2:
            self.close_connection = True
            self._bytes(int(parts[1]), sized=False)
        elif parts[0] == "status" and len(parts) == 2:
            self.send_response(int(parts[1]))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_error(404)


def main():
    Handler.root = sys.argv[1]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    temporary = sys.argv[2] + ".tmp"
    with open(temporary, "w") as port_file:
        port_file.write(str(server.server_address[1]))
    os.rename(temporary, sys.argv[2])
    server.serve_forever()


if __name__ == "__main__":
    main()
