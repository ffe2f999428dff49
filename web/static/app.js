// faultline UI: copy buttons, the incident page's live refresh, and a
// keyboard shortcut. Loaded as an external script (the CSP forbids inline).
(function () {
  'use strict';

  // --- copy buttons -------------------------------------------------------
  function fallbackCopy(text) {
    var ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'sr';
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok ? Promise.resolve() : Promise.reject(new Error('copy refused'));
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); });
    }
    return fallbackCopy(text);
  }

  document.addEventListener('click', function (ev) {
    var b = ev.target.closest('button.copy');
    if (!b) return;
    var text = b.getAttribute('data-copy');
    var from = b.getAttribute('data-copy-from');
    if (from) {
      var el = document.getElementById(from);
      text = el ? el.textContent : '';
    }
    if (text === null) return;
    if (b.hasAttribute('data-absolute')) text = new URL(text, location.href).href;
    copyText(text).then(function () {
      b.textContent = 'Copied';
      b.classList.add('done');
      b.setAttribute('data-copied', text);
      setTimeout(function () { b.textContent = 'Copy'; b.classList.remove('done'); }, 1500);
    }, function () { b.textContent = 'Select & copy'; });
  });

  // Relative links shown for copying get this site's origin.
  document.querySelectorAll('code[data-absolute]').forEach(function (c) {
    c.textContent = new URL(c.textContent, location.href).href;
  });

  // --- keyboard: "/" focuses the trace search ------------------------------
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    var q = document.getElementById('q-trace');
    if (q) { ev.preventDefault(); q.focus(); }
  });

  // --- trace waterfall: corrected clock, or the hosts' own on demand ---------
  var rawBtn = document.getElementById('wf-raw');
  if (rawBtn) {
    rawBtn.addEventListener('click', function () {
      var raw = rawBtn.getAttribute('aria-pressed') !== 'true';
      var p = raw ? 'data-raw-' : 'data-';
      document.querySelectorAll('#wf li.wf').forEach(function (li) {
        var rect = li.querySelector('summary rect');
        if (rect) { rect.setAttribute('x', li.getAttribute(p + 'x')); rect.setAttribute('width', li.getAttribute(p + 'w')); }
        var when = li.querySelector('.when');
        if (when) when.textContent = li.getAttribute(p + 'off');
      });
      document.getElementById('wf').classList.toggle('hostclock', raw);
      rawBtn.setAttribute('aria-pressed', raw ? 'true' : 'false');
      rawBtn.textContent = raw ? 'Show corrected clock' : 'Show host clocks';
      var note = document.getElementById('wf-clock-note');
      if (note) note.textContent = raw
        ? 'Bars and offsets by each host\'s own clock, as written: skewed hosts fall outside their callers.'
        : 'Bars and offsets are on the corrected clock: each span inside its caller\'s.';
    });
  }

  // --- live refresh of the incident page -----------------------------------
  var root = document.getElementById('incident');
  if (!root) return;
  var api = root.getAttribute('data-api');
  var every = Math.max(5, parseInt(root.getAttribute('data-refresh'), 10) || 15) * 1000;
  var toggle = document.getElementById('live-toggle');
  var status = document.getElementById('live-status');
  var paused = false;
  try { paused = sessionStorage.getItem('faultline.live.paused') === '1'; } catch (e) { paused = false; }
  var last = null;
  var busy = false;

  function say(text) { if (status) status.textContent = text; }
  function clock() { return new Date().toISOString().slice(11, 19) + ' UTC'; }

  function showPaused() {
    toggle.setAttribute('aria-pressed', paused ? 'false' : 'true');
    toggle.textContent = paused ? 'Resume live' : 'Pause live';
    say(paused ? 'paused' : 'live · every ' + every / 1000 + 's');
  }

  toggle.addEventListener('click', function () {
    paused = !paused;
    try { sessionStorage.setItem('faultline.live.paused', paused ? '1' : '0'); } catch (e) { /* private mode */ }
    showPaused();
    if (!paused) tick();
  });

  // Numbers that change often are updated in place straight from the JSON.
  function setField(scope, name, value) {
    var el = scope.querySelector('[data-field="' + name + '"]');
    if (typeof value === 'number') value = value.toLocaleString('en-US');
    if (el && el.textContent !== String(value)) el.textContent = String(value);
  }

  // explainedWords is runbookgen.ExplainedWords: the share of the window's
  // anomalous requests a candidate explains, from its [explained] line.
  function explainedWords(c) {
    var ev = c.evidence || [];
    for (var i = 0; i < ev.length; i++) {
      var m = /^explains (\d+)% .* \[explained\]$/.exec(ev[i]);
      if (m) return m[1] === '0' ? 'explains <1%' : 'explains ' + m[1] + '%';
    }
    return 'symptoms only';
  }

  function updateNumbers(rep) {
    setField(document, 'traces', rep.traces);
    setField(document, 'failed_traces', rep.failed_traces);
    setField(document, 'candidates', (rep.candidates || []).length);
    (rep.candidates || []).forEach(function (c) {
      var li = document.getElementById('cand-' + c.id);
      if (li) setField(li, 'explained', explainedWords(c));
    });
  }

  // Which <details> are open, by the id of their closest identified ancestor.
  function openState(section) {
    var open = {};
    section.querySelectorAll('details').forEach(function (d, i) {
      var owner = d.closest('[id]');
      var key = (owner ? owner.id : '') + '/' + (d.className || i);
      open[key] = d.open;
    });
    return open;
  }

  function restoreOpen(section, open) {
    section.querySelectorAll('details').forEach(function (d, i) {
      var owner = d.closest('[id]');
      var key = (owner ? owner.id : '') + '/' + (d.className || i);
      if (key in open) d.open = open[key];
    });
  }

  // Structural changes re-render the live sections from the server's HTML,
  // keeping scroll position, open details and focus.
  function swapSections(html) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    var y = window.scrollY;
    var focusId = document.activeElement && document.activeElement.id;
    document.querySelectorAll('[data-live]').forEach(function (cur) {
      var next = doc.getElementById(cur.id);
      if (!next) return;
      var open = openState(cur);
      var kids = Array.prototype.map.call(next.childNodes, function (n) { return document.importNode(n, true); });
      cur.replaceChildren.apply(cur, kids);
      restoreOpen(cur, open);
    });
    window.scrollTo(window.scrollX, y);
    if (focusId) { var f = document.getElementById(focusId); if (f) f.focus({ preventScroll: true }); }
  }

  function tick() {
    if (paused || busy || document.hidden) return;
    busy = true;
    fetch(api, { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.text();
      })
      .then(function (text) {
        var rep = JSON.parse(text);
        updateNumbers(rep);
        if (last !== null && text !== last) {
          return fetch(location.href, { credentials: 'same-origin', cache: 'no-store' })
            .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
            .then(swapSections)
            .then(function () { last = text; });
        }
        last = text;
      })
      .then(function () { say('live · updated ' + clock()); root.setAttribute('data-updated', String(Date.now())); },
        function (err) { say('refresh failed (' + err.message + '); retrying'); })
      .then(function () { busy = false; });
  }

  showPaused();
  setInterval(tick, every);
  document.addEventListener('visibilitychange', function () { if (!document.hidden) tick(); });
  tick();
})();
