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
