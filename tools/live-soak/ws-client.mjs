// A page stand-in for soak runs: connects to `omote live --view`'s WebSocket like the
// live page does (Node ≥ 22 has WebSocket built in), counts messages, checks they are
// JSON without NaN, reconnects when the socket closes. Prints a count every minute.
//   node ws-client.mjs ws://127.0.0.1:8080/live
const url = process.argv[2];
let count = 0, bad = 0;
function connect() {
  const ws = new WebSocket(url, { headers: { Origin: 'http://127.0.0.1' } });
  ws.onmessage = (ev) => {
    count++;
    try {
      const m = JSON.parse(ev.data);
      if (m.type === 'frame' && !m.w.every(Number.isFinite)) bad++;
    } catch { bad++; }
  };
  ws.onclose = () => setTimeout(connect, 500);
  ws.onerror = () => {};
}
connect();
setInterval(() => console.log(`${new Date().toISOString()} messages ${count} bad ${bad}`), 60000);
