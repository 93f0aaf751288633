// api.js - the client of the JSON API (docs/api.md): the caller's token as
// a bearer, the public's view once the token is refused, and the line
// under the masthead when the server cannot be reached.
import {$} from './dom.js';
import {fmtSpan} from './format.js';
import {hooks, state} from './state.js';

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : 'HTTP ' + status);
    this.status = status;
    this.body = body;
  }
}

// opts: method, body, headers, allowError (an error status is an answer,
// not a throw), forceToken (send the token even after a 401)
export async function api(path, opts) {
  opts = opts || {};
  const headers = Object.assign({}, opts.headers || {});
  const useToken = state.token && (!state.tokenBad || opts.forceToken);
  if (useToken) headers.Authorization = 'Bearer ' + state.token;
  let res;
  try {
    res = await fetch(path, {method: opts.method || 'GET', body: opts.body, headers, cache: 'no-store'});
  } catch (e) {
    setConnection(false);
    throw e;
  }
  setConnection(true);
  let body = null;
  const text = await res.text();
  if (text) { try { body = JSON.parse(text); } catch (e) { body = {error: text}; } }
  if (res.status === 401 && useToken) {
    state.tokenBad = true;
    hooks.tokenRefused();
    if ((opts.method || 'GET') === 'GET') return api(path, opts);   // go on as the public
  }
  if (!res.ok && !opts.allowError) throw new ApiError(res.status, body);
  return {status: res.status, ok: res.ok, body};
}

export async function getJSON(path) { return (await api(path)).body; }

// The objects of each type, {type: [object...]}.
export async function objectsOfTypes(types) {
  const uniq = [...new Set(types)];
  const lists = await Promise.all(uniq.map((t) => getJSON('api/objects?type=' + encodeURIComponent(t))));
  const out = {};
  uniq.forEach((t, i) => { out[t] = lists[i]; });
  return out;
}

let lastOk = null;
export function setConnection(ok) {
  const el = $('connection');
  if (ok) {
    lastOk = Date.now();
    el.classList.remove('down');
    el.textContent = '';
  } else {
    el.classList.add('down');
    el.textContent = 'Cannot reach the game server' +
      (lastOk ? ' (last answer ' + fmtSpan((Date.now() - lastOk) / 1000) + ' ago)' : '') + '; retrying.';
  }
}
