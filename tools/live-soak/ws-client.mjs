// A page stand-in for soak runs: a minimal WebSocket client on `node:net` (Node 20 has
// no WebSocket global) that connects to `omote live --view`'s `/live` like the live
// page does, reads every message, checks it is JSON with finite weights, and reconnects
// when the socket closes. Prints the count every minute.
//   node ws-client.mjs 127.0.0.1:8080
import net from 'node:net';
import crypto from 'node:crypto';

const [host, port] = process.argv[2].split(':');
let count = 0, bad = 0, connects = 0;

function connect() {
  const sock = net.connect(Number(port), host);
  let buf = Buffer.alloc(0), upgraded = false;
  sock.on('connect', () => {
    const key = crypto.randomBytes(16).toString('base64');
    sock.write(`GET /live HTTP/1.1\r\nHost: ${host}:${port}\r\nOrigin: http://${host}:${port}\r\n`
      + `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
  sock.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!buf.subarray(0, end).toString().startsWith('HTTP/1.1 101')) { sock.destroy(); return; }
      upgraded = true; connects++;
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1] & 0x7f, off = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
      if (buf.length < off + len) return;
      const op = buf[0] & 0x0f, payload = buf.subarray(off, off + len);
      buf = buf.subarray(off + len);
      if (op === 1) {
        count++;
        try {
          const m = JSON.parse(payload.toString());
          if (m.type === 'frame' && !m.w.every(Number.isFinite)) bad++;
        } catch { bad++; }
      } else if (op === 8) { sock.end(); return; }
    }
  });
  sock.on('close', () => setTimeout(connect, 500));
  sock.on('error', () => {});
}
connect();
setInterval(() => console.log(`${new Date().toISOString()} connects ${connects} messages ${count} bad ${bad}`), 60000);
