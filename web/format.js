// format.js - how the page writes times, spans and numbers: pure functions
// of their arguments (no DOM), tested by tests/web/format.test.mjs.

function pad(n) { return String(n).padStart(2, '0'); }

// seconds since 1970 -> "2026-01-01 00:00:00 UTC"
export function fmtTime(sec) {
  const t = Number(sec);
  if (!Number.isFinite(t)) return String(sec);
  const d = new Date(t * 1000);
  if (Number.isNaN(d.getTime())) return String(sec);
  return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
    pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC';
}

// a span of seconds -> "3 d 4 h", "5 min", "12 s"
export function fmtSpan(s) {
  s = Math.abs(Math.round(s));
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

// a time against now -> "in 5 min 0 s", "12 s ago", "now"
export function fmtRel(sec, now) {
  const d = Number(sec) - now;
  if (!Number.isFinite(d)) return '';
  if (Math.abs(d) < 1) return 'now';
  return d > 0 ? 'in ' + fmtSpan(d) : fmtSpan(d) + ' ago';
}

// The game's time: the server's clock, or the time of the game's last
// event where that is later (a game played ahead of the clock with --time:
// the game's time only goes forward, so its next move happens then, not at
// the clock's time).  Seconds; what is not a number is left out.
export function gameTime(serverTime, lastEventTime) {
  const s = Number(serverTime), l = lastEventTime === null || lastEventTime === undefined ? NaN : Number(lastEventTime);
  if (!Number.isFinite(s)) return Number.isFinite(l) ? l : NaN;
  return Number.isFinite(l) && l > s ? l : s;
}

// Clocks within this many seconds of each other are the same clock on the page.
export const CLOCK_SLACK = 60;

// The header's clock: the game's time alone where the reader's clock agrees
// with it (within a minute), else both, labelled:
//   {differ: false, text: '2026-01-01 00:00:00 UTC'}
//   {differ: true, text: 'Game time 2026-01-05 12:00:00 UTC \u00b7 your clock 2026-11-28 05:00:00 UTC (327 d 17 h ahead)'}
export function clockText(game, yours) {
  const d = Number(yours) - Number(game);
  if (!Number.isFinite(d) || Math.abs(d) <= CLOCK_SLACK) return {differ: false, text: fmtTime(Math.floor(game))};
  return {differ: true, text: 'Game time ' + fmtTime(Math.floor(game)) + ' \u00b7 your clock ' + fmtTime(Math.floor(yours)) +
    ' (' + fmtSpan(d) + (d > 0 ? ' ahead' : ' behind') + ')'};
}

// A deadline against the game's time (now), never "closed ... (in 9 d)":
// one in the past of the game's clock is closed, one in its future closes,
// unless what it closes has ended before it (ended: decided early).
//   {closed: false, text: 'closes 2026-01-11 00:00:00 UTC (in 10 d 0 h)'}
//   {closed: true, text: 'closed 2026-01-11 00:00:00 UTC (2 d 0 h ago)'}
//   {closed: true, text: 'closed before its deadline, 2026-01-11 00:00:00 UTC'}
export function fmtDeadline(at, now, ended) {
  const t = Number(at);
  if (!Number.isFinite(t) || !Number.isFinite(now)) return {closed: !!ended, text: (ended ? 'closed ' : 'closes ') + fmtTime(at)};
  if (t <= now) return {closed: true, text: 'closed ' + fmtTime(t) + (now - t < 1 ? ' (just now)' : ' (' + fmtSpan(now - t) + ' ago)')};
  if (ended) return {closed: true, text: 'closed before its deadline, ' + fmtTime(t)};
  return {closed: false, text: 'closes ' + fmtTime(t) + ' (in ' + fmtSpan(t - now) + ')'};
}

// How long ago something happened (a game's last event), against the
// reader's clock; a time ahead of that clock by more than a minute (a game
// played ahead with --time) says so, not "in 10 d".
export function fmtAgo(sec, now) {
  const d = now - Number(sec);
  if (!Number.isFinite(d)) return '';
  if (d < -CLOCK_SLACK) return fmtSpan(d) + ' ahead of your clock';
  if (d < 1) return 'now';
  return fmtSpan(d) + ' ago';
}

// attribute values are text; numbers may be -12, 3.75 or 2/5
export function num(v) {
  if (typeof v !== 'string') return NaN;
  const s = v.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return parseFloat(s);
  const m = /^(-?\d+)\/(\d+)$/.exec(s);
  if (m && Number(m[2]) !== 0) return Number(m[1]) / Number(m[2]);
  return NaN;
}

// objects in the order of their ids
export function byId(a, b) { return (num(a.objectId) - num(b.objectId)) || 0; }

export const present = (v) => v !== undefined && v !== null && v !== '';
