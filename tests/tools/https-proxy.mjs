// A TLS front for a local HTTP server, as a reverse proxy would be:
//   node https-proxy.mjs CERT.pem KEY.pem http://127.0.0.1:PORT
// listens on a free loopback port and prints it, then forwards every
// request (streamed both ways, so MCP's event streams pass) to the target.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";

const [cert, key, target] = process.argv.slice(2);
const upstream = new URL(target);
const server = https.createServer(
  { cert: fs.readFileSync(cert), key: fs.readFileSync(key) },
  (req, res) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  },
);
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
