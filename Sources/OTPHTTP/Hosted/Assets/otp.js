// The hosted verification page's behaviour: it turns the plain form into the
// code field with cells, checks and resends over fetch, and mirrors the
// server's answers (UX rules F1-F12, S1, V1-V16). Without it the form works.

// The page that hands an approval back to the app (response mode form_post): posted at
// once; without JavaScript its Continue button posts it.
(() => {
  'use strict';
  const back = document.getElementById('otp-return');
  if (back && back.dataset.autosubmit === 'true') back.submit();
})();

(() => {
  'use strict';

  const root = document.getElementById('otp');
  const form = document.getElementById('otp-form');
  const input = document.getElementById('otp-input');
  const label = document.getElementById('otp-label');
  const submit = document.getElementById('otp-submit');
  const status = document.getElementById('otp-status');
  const resendForm = document.getElementById('otp-resend-form');
  const resend = document.getElementById('otp-resend');
  if (!root || !form || !input || !status || root.classList.contains('otp-enhanced')) return;

  const length = Math.min(8, Math.max(4, parseInt(root.dataset.length, 10) || 6));
  const alphanumeric = root.dataset.kind === 'alphanumeric';
  const urls = {
    state: root.dataset.stateUrl,
    check: root.dataset.checkUrl || form.action,
    resend: root.dataset.resendUrl || (resendForm && resendForm.action),
    normalize: root.dataset.normalizeUrl,
  };
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const typingInterval = 60;
  const toastDuration = 2000;
  const redirectDelay = 400;

  // English sentences until the page's own language arrives with the state; the server puts
  // the string catalog's English here when it serves this file.
  let text = /* OTP_ENGLISH_STRINGS */ {};

  // The normalisation table; ASCII digits only until the page's table arrives.
  let table = { decimalZeros: [48], dashes: ['-'], maxPrefixLetters: 3, fullWidthLatin: [] };

  // ---- Normalisation (F3), the same rules as the server's.

  function mapCharacter(ch) {
    const cp = ch.codePointAt(0);
    for (const zero of table.decimalZeros) {
      if (cp >= zero && cp <= zero + 9) return String(cp - zero);
    }
    if (!alphanumeric) return '';
    if (cp < 128) return /[A-Za-z]/.test(ch) ? ch.toUpperCase() : '';
    for (const [low, high] of table.fullWidthLatin) {
      if (cp >= low && cp <= high) return String.fromCharCode(65 + cp - low);
    }
    return '';
  }

  function keptCharacters(raw) {
    let kept = '';
    for (const ch of raw) kept += mapCharacter(ch);
    return kept;
  }

  // Drops a leading prefix of one to three ASCII letters and a dash, as in G-482019.
  function stripPrefix(raw) {
    const trimmed = raw.replace(/^\s+/u, '');
    const letters = /^[A-Za-z]+/.exec(trimmed);
    if (!letters || letters[0].length > table.maxPrefixLetters) return raw;
    const after = trimmed.slice(letters[0].length);
    if (!after) return raw;
    const dash = String.fromCodePoint(after.codePointAt(0));
    if (!table.dashes.includes(dash)) return raw;
    const rest = after.slice(dash.length);
    if (alphanumeric && keptCharacters(rest).length < length) return raw;
    return rest;
  }

  // For an alphanumeric code, the one word of a pasted sentence that is a whole code.
  function codeWord(raw) {
    if (!alphanumeric) return null;
    const words = raw.split(/\s+/u).filter(Boolean);
    if (words.length < 2) return null;
    const whole = words.map((w) => keptCharacters(stripPrefix(w))).filter((w) => w.length === length);
    const withDigit = whole.filter((w) => /[0-9]/.test(w));
    for (const candidates of [whole, withDigit]) {
      if (candidates.length && new Set(candidates).size === 1) return candidates[0];
    }
    return null;
  }

  // A pasted text that is more than a code (a whole message, F12): the origin-bound
  // line's #code first, else the one run of the code's length (digits may have one space,
  // dash or dot between them; a word for letters and digits), else null.
  function codeInMessage(raw) {
    const words = raw.split(/\s+/u).filter(Boolean);
    for (let i = 1; i < words.length; i += 1) {
      if (words[i].startsWith('#') && words[i - 1].startsWith('@')) {
        const bound = keptCharacters(words[i].slice(1));
        if (bound.length === length) return bound;
      }
    }
    let runs = [];
    if (alphanumeric) {
      runs = words.map((w) => keptCharacters(stripPrefix(w)));
    } else {
      let current = '';
      let separator = false;
      for (const ch of raw) {
        const kept = mapCharacter(ch);
        if (kept) {
          current += kept;
          separator = false;
        } else if (current && !separator && (ch === ' ' || ch === '.' || table.dashes.includes(ch))) {
          separator = true;
        } else {
          if (current) runs.push(current);
          current = '';
          separator = false;
        }
      }
      if (current) runs.push(current);
    }
    const whole = runs.filter((run) => run.length === length);
    if (new Set(whole).size === 1) return whole[0];
    if (!alphanumeric) return null;
    const withDigit = whole.filter((run) => /[0-9]/.test(run));
    return new Set(withDigit).size === 1 ? withDigit[0] : null;
  }

  // What a key, a paste or autofill brings: the format's characters, or a pasted message's
  // one code; '' when it brings nothing the code can take.
  function incoming(raw) {
    const kept = normalizeUncut(raw);
    if (kept.length <= length) return kept;
    return codeInMessage(raw) || '';
  }

  function normalizeUncut(raw) {
    const word = codeWord(raw);
    if (word) return word;
    let kept = keptCharacters(stripPrefix(raw));
    if (kept.length === length * 2 && kept.slice(0, length) === kept.slice(length)) {
      kept = kept.slice(0, length);
    }
    return kept;
  }

  // ---- The enhanced field (F1, F2, F8, F10).

  function make(tag, className, attributes) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, value);
    return element;
  }

  root.classList.add('otp-enhanced');
  form.noValidate = true;
  // The script keeps the code to its length itself; a whole pasted message must reach it uncut,
  // its `#code` line last (F12).
  input.removeAttribute('maxlength');
  if (submit) {
    submit.hidden = true;
    submit.dataset.label = submit.textContent;
  }
  if (label) label.classList.add('otp-visually-hidden');

  const field = make('div', 'otp-field', { dir: 'ltr' });
  input.parentNode.insertBefore(field, input);
  field.appendChild(input);
  input.classList.add('otp-input');
  input.setAttribute('dir', 'ltr');
  input.setAttribute('autocomplete', 'one-time-code');
  input.setAttribute('inputmode', alphanumeric ? 'text' : 'numeric');
  input.setAttribute('autocapitalize', alphanumeric ? 'characters' : 'off');

  const cellsBox = make('div', 'otp-cells', { 'aria-hidden': 'true', dir: 'ltr' });
  const groups = length === 6 ? [3, 3] : length === 8 ? [4, 4] : [length];
  const cells = [];
  groups.forEach((size, index) => {
    if (index > 0) cellsBox.appendChild(make('span', 'otp-separator'));
    const group = make('span', 'otp-group');
    for (let i = 0; i < size; i += 1) {
      const cell = make('span', 'otp-cell');
      cells.push(cell);
      group.appendChild(cell);
    }
    cellsBox.appendChild(group);
  });
  field.appendChild(cellsBox);

  const progress = make('span', 'otp-visually-hidden', { id: 'otp-progress' });
  field.after(progress);
  input.setAttribute('aria-describedby', 'otp-progress otp-status');
  if (label && label.id) input.setAttribute('aria-labelledby', label.id);

  // Announcements go through two regions of their own; the visible status only shows.
  status.removeAttribute('aria-live');
  status.removeAttribute('role');
  const politeRegion = make('div', 'otp-visually-hidden', {
    id: 'otp-live-polite', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true',
  });
  const assertiveRegion = make('div', 'otp-visually-hidden', {
    id: 'otp-live-assertive', role: 'alert', 'aria-live': 'assertive', 'aria-atomic': 'true',
  });
  const toast = make('div', 'otp-toast', { 'aria-hidden': 'true' });
  root.append(politeRegion, assertiveRegion, toast);

  // The resend button stays focusable while its countdown runs (V4 points focus to it).
  const resendDisabledAtLoad = !!(resend && resend.disabled);
  if (resend) resend.disabled = false;

  // ---- State.

  let value = '';
  // Tap to correct (F11): the selected filled cell, which the next key replaces, or -1;
  // and a cell Backspace cleared there, which the next key fills, or -1.
  let selected = -1;
  let hole = -1;
  let rejected = false;
  let lastSubmitted = null;
  let phase = 'idle';
  let canRetry = false;
  let typing = false;
  let resending = false;
  let clockOffset = 0;
  let expiresAt = null;
  let resendAt; // undefined: not known yet; null: no sends left
  let resendAnnounced = true;
  let ticker = 0;
  let toastTimer = 0;
  let otpAbort = null;

  const serverNow = () => Date.now() + clockOffset;
  const editable = () => !typing && (phase === 'idle' || phase === 'filling' || phase === 'invalid');
  const finished = () => phase === 'verified' || phase === 'closed';

  function minutesSeconds(totalSeconds) {
    const s = Math.max(0, Math.ceil(totalSeconds));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }

  // A sentence is set a moment after the region is emptied, so a repeated one is read again;
  // a newer sentence drops a polite one not yet set (no "Verifying…" after the answer).
  const pendingAnnouncement = { polite: 0, assertive: 0 };
  function announce(sentence, assertive) {
    const key = assertive ? 'assertive' : 'polite';
    const region = assertive ? assertiveRegion : politeRegion;
    window.clearTimeout(pendingAnnouncement.polite);
    window.clearTimeout(pendingAnnouncement[key]);
    region.textContent = '';
    if (!sentence) return;
    pendingAnnouncement[key] = window.setTimeout(() => { region.textContent = sentence; }, 60);
  }

  function setStatus(sentence, role) {
    status.textContent = sentence || '';
    status.dataset.role = role || 'neutral';
  }

  function fieldValue(count) {
    const known = text.fieldValue && text.fieldValue[String(count)];
    return known || `${count} / ${length}`;
  }

  // What each cell shows: the code, with a cleared cell left empty where it was.
  function shown() {
    const chars = [];
    let from = 0;
    for (let i = 0; i < length; i += 1) {
      chars.push(i === hole ? '' : value[from++] || '');
    }
    return chars;
  }

  // The cell the next key goes to: the selection, else a cleared cell, else the end.
  function highlighted() {
    if (selected >= 0) return selected;
    if (hole >= 0) return hole;
    return value.length < length ? value.length : -1;
  }

  function complete() {
    return value.length === length && hole < 0;
  }

  function render() {
    root.dataset.phase = phase;
    field.dataset.phase = phase;
    const next = editable() && !rejected ? highlighted() : -1;
    const chars = shown();
    cells.forEach((cell, i) => {
      const ch = chars[i];
      if (cell.textContent !== ch) cell.textContent = ch;
      cell.classList.toggle('is-filled', ch !== '');
      cell.classList.toggle('is-next', i === next);
      cell.classList.toggle('is-selected', editable() && i === selected);
    });
    input.readOnly = !editable();
    input.disabled = phase === 'locked' || phase === 'closed';
    if (input.value !== value) input.value = value;
    const description = fieldValue(value.length);
    if (progress.textContent !== description) progress.textContent = description;
  }

  function pop(index) {
    const cell = cells[index];
    if (!cell || reduceMotion.matches) return;
    cell.classList.remove('otp-pop');
    void cell.offsetWidth;
    cell.classList.add('otp-pop');
  }

  function shake() {
    if (reduceMotion.matches) return;
    cellsBox.classList.remove('otp-shake');
    void cellsBox.offsetWidth;
    cellsBox.classList.add('otp-shake');
  }

  cellsBox.addEventListener('animationend', (event) => {
    event.target.classList.remove('otp-shake', 'otp-pop');
  });

  function showRetry(show) {
    if (!submit) return;
    submit.textContent = show ? text.tryAgain : submit.dataset.label;
    submit.hidden = !show;
    // The page may have come disabled (a locked or expired code); Try again must work.
    if (show) submit.disabled = false;
  }

  // ---- Resend countdown (V5) and expiry (V7).

  function resendEnabled() {
    if (finished() || resending || typing || phase === 'verifying') return false;
    if (resendAt === undefined) return !resendDisabledAtLoad;
    return resendAt !== null && resendAt <= serverNow();
  }

  function renderResend() {
    if (!resend) return;
    if (resendForm) resendForm.hidden = phase === 'verified';
    let caption = text.resendCode;
    if (resendAt) {
      const left = (resendAt - serverNow()) / 1000;
      if (left > 0) {
        caption = text.resendIn.replace('{time}', minutesSeconds(left));
      } else if (!resendAnnounced) {
        resendAnnounced = true;
        if (!finished()) announce(text.resendAvailable, false);
      }
    } else if (resendAt === undefined && resendDisabledAtLoad) {
      caption = resend.textContent;
    }
    if (resend.textContent !== caption) resend.textContent = caption;
    const enabled = resendEnabled();
    resend.setAttribute('aria-disabled', enabled ? 'false' : 'true');
    resend.classList.toggle('is-disabled', !enabled);
  }

  function tick() {
    renderResend();
    if (expiresAt !== null && serverNow() >= expiresAt && editable()) {
      stopWebOTP();
      reject('expired', text.expired);
    }
  }

  function startTicker() {
    if (!ticker) ticker = window.setInterval(tick, 250);
  }

  function stopTicker() {
    window.clearInterval(ticker);
    ticker = 0;
  }

  function adopt(verification) {
    if (!verification) return;
    expiresAt = verification.expiresAt ? Date.parse(verification.expiresAt) : null;
    const next = verification.resendAvailableAt ? Date.parse(verification.resendAvailableAt) : null;
    if (next !== resendAt) {
      if (next !== null && next > serverNow()) resendAnnounced = false;
      resendAt = next;
    }
  }

  function restartCountdown(seconds) {
    resendAt = serverNow() + Math.max(0, seconds) * 1000;
    resendAnnounced = false;
  }

  // ---- Outcomes.

  function reject(kind, sentence) {
    rejected = true;
    selected = -1;
    phase = kind;
    canRetry = false;
    showRetry(false);
    setStatus(sentence, 'error');
    announce(sentence, true);
    render();
    renderResend();
    if (kind !== 'locked' && kind !== 'closed') shake();
  }

  function lock(sentence) {
    stopWebOTP();
    reject('locked', sentence || text.locked);
    if (resend) resend.focus();
  }

  function close(sentence) {
    stopWebOTP();
    rejected = true;
    phase = 'closed';
    showRetry(false);
    setStatus(sentence, 'error');
    announce(sentence, true);
    stopTicker();
    render();
    renderResend();
  }

  // Posts the approval token to the return URL (form_post): the token stays out of URLs.
  function postBack(answer) {
    const back = document.createElement('form');
    back.method = 'post';
    back.action = answer.returnUrl;
    back.hidden = true;
    for (const [name, value] of [['state', answer.returnState || ''], ['token', answer.approvalToken]]) {
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = name;
      field.value = value;
      back.appendChild(field);
    }
    document.body.appendChild(back);
    back.submit();
  }

  function verified(redirectUrl, answer) {
    stopWebOTP();
    phase = 'verified';
    // Verified: the way back without a verification no longer applies.
    const back = document.getElementById('otp-back');
    if (back) back.hidden = true;
    canRetry = false;
    showRetry(false);
    setStatus(text.verified, 'success');
    announce(text.verified, true);
    stopTicker();
    render();
    renderResend();
    if (redirectUrl) window.setTimeout(() => window.location.assign(redirectUrl), redirectDelay);
    else if (answer && answer.returnUrl && answer.approvalToken) {
      window.setTimeout(() => postBack(answer), redirectDelay);
    } else {
      // Approved, but the token never reached this page (its answer was lost): Continue returns
      // without it, and the backend confirms the approval itself. It is the one thing left to
      // press, so it takes the focus, as Resend does at a lock.
      const onward = document.getElementById('otp-verified-back');
      if (onward) {
        onward.hidden = false;
        const target = onward.querySelector('a, button');
        if (target) target.focus();
      }
    }
  }

  // A request judged no longer pending may be about a code this very page had approved, the
  // answer lost: the state says. A state that does not come keeps Try again; another request
  // that moved the page on meanwhile has the last word.
  async function notPendingAnswered(phaseAsked) {
    const state = await fetchState();
    if (phase !== phaseAsked) return;
    const verification = state && state.ok && state.body && state.body.verification;
    if (verification && verification.status === 'approved') {
      adopt(verification);
      verified(null);
    } else if (!verification) {
      failedToReach();
    } else {
      close(text.notPending);
    }
  }

  function failedToReach(sentence) {
    phase = value ? 'filling' : 'idle';
    canRetry = true;
    setStatus(sentence || text.networkFailure, 'error');
    announce(sentence || text.networkFailure, true);
    showRetry(true);
    render();
    renderResend();
  }

  function applyStatus(state, atLoad) {
    switch (state) {
      case 'approved':
        verified(null);
        break;
      case 'locked':
        if (atLoad) {
          rejected = true;
          phase = 'locked';
          setStatus(text.locked, 'error');
          render();
        } else {
          lock();
        }
        break;
      case 'expired':
        if (atLoad) {
          rejected = true;
          phase = 'expired';
          setStatus(text.expired, 'error');
          render();
        } else {
          reject('expired', text.expired);
        }
        break;
      case 'canceled':
        close(text.notPending);
        break;
      default:
        break;
    }
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    let json = null;
    try {
      json = await response.json();
    } catch (error) {
      json = null;
    }
    return { ok: response.ok, json };
  }

  // ---- Check (F4, V2, V3, V4, V7, V8, V9).

  async function check(code) {
    phase = 'verifying';
    canRetry = false;
    showRetry(false);
    setStatus(text.verifying, 'progress');
    announce(text.verifying, false);
    render();
    renderResend();
    let answer;
    try {
      answer = await post(urls.check, { code });
    } catch (error) {
      failedToReach();
      return;
    }
    if (phase !== 'verifying') return;
    const body = answer.json;
    if (answer.ok && body) {
      const verification = body.verification || body;
      adopt(verification);
      if (verification.status === 'approved') {
        verified(body.redirectUrl || verification.redirectUrl, body);
      } else {
        phase = 'filling';
        applyStatus(verification.status, false);
        if (phase === 'verifying' || phase === 'filling') failedToReach();
      }
      return;
    }
    const error = body && body.error;
    if (!error) {
      failedToReach();
      return;
    }
    const left = typeof error.attemptsLeft === 'number' ? error.attemptsLeft : null;
    switch (error.code) {
      case 'incorrect_code':
        if (left === 0) {
          lock();
        } else {
          const sentence = (left !== null && text.incorrect && text.incorrect[String(left)]) ||
            text.codeRejected;
          reject('invalid', sentence);
        }
        break;
      case 'locked':
        lock();
        break;
      case 'expired':
        stopWebOTP();
        reject('expired', text.expired);
        break;
      case 'invalid_code_format':
        reject('invalid', text.invalidFormat || text.codeRejected);
        break;
      case 'not_pending':
        await notPendingAnswered(phase);
        break;
      case 'not_found':
        close(text.notFound);
        break;
      case 'rate_limited':
        failedToReach(text.rateLimited.replace('{time}', minutesSeconds(error.retryAfter || 0)));
        break;
      default:
        failedToReach();
        break;
    }
  }

  function maybeSubmit() {
    if (phase !== 'idle' && phase !== 'filling') return;
    if (typing || rejected || !complete() || value === lastSubmitted) return;
    lastSubmitted = value;
    selected = -1;
    check(value);
  }

  // ---- Editing (F3, F5).

  // The smallest edit from the old text to the new one: where, and what was inserted.
  function difference(before, after) {
    let start = 0;
    const shortest = Math.min(before.length, after.length);
    while (start < shortest && before[start] === after[start]) start += 1;
    let tail = 0;
    while (tail < shortest - start &&
      before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail += 1;
    return { start, end: before.length - tail, inserted: after.slice(start, after.length - tail) };
  }

  // The edit of a typed text (`typed`, from the input event): where the texts alone cannot tell,
  // a key that repeats the first character of the selection it replaced ("123" selected, "1"
  // typed) reads as the rest deleted ("23"); the typed text went in just before it, over the
  // selection.
  function typedDifference(before, after, typed) {
    const edit = difference(before, after);
    if (!typed || edit.inserted.length >= typed.length) return edit;
    const start = after.length - (before.length - edit.end) - typed.length;
    if (start < 0 || after.slice(start, start + typed.length) !== typed ||
      before.slice(0, start) !== after.slice(0, start)) return edit;
    return { start, end: edit.end, inserted: typed };
  }

  function afterEdit(previous) {
    if (phase === 'invalid' && !rejected) setStatus('', 'neutral');
    if (canRetry && value.length < length) {
      // The code without an answer was edited: typed whole again, it goes out again (V9).
      canRetry = false;
      lastSubmitted = null;
      showRetry(false);
      setStatus('', 'neutral');
    }
    if (!rejected && (phase === 'idle' || phase === 'filling' || phase === 'invalid')) {
      phase = value ? 'filling' : 'idle';
    }
    render();
    const before = previous.split(',');
    shown().forEach((ch, i) => {
      if (ch && ch !== before[i]) pop(i);
    });
    maybeSubmit();
  }

  // `pasted`: the text a paste, a drop or a replacement (autofill) put in, when the browser says.
  function onText(pasted, typed) {
    const proposed = input.value;
    if (proposed === value) return;
    if (!editable()) {
      input.value = value;
      return;
    }
    const edit = typedDifference(value, proposed, typed);
    const inserted = incoming(edit.inserted);
    const previous = shown().join(',');
    // A pasted, dropped or autofilled whole code is the code, wherever it landed and whatever it
    // shares with the old text: comparing texts alone, a code ending in the digit it replaced
    // looks like an insertion before that digit (F3, F12).
    const pastedCode = typeof pasted === 'string' ? incoming(pasted) : '';
    // Text that replaced a selection (select all, then paste or type; an autofill that sets the
    // whole value) is the field's new text, not an insertion into the old one (F3, F12).
    const replacement = edit.end > edit.start && edit.inserted ? incoming(proposed) : '';
    if (pastedCode.length === length) {
      rejected = false;
      selected = -1;
      hole = -1;
      value = pastedCode;
    } else if (replacement) {
      rejected = false;
      selected = -1;
      hole = -1;
      value = replacement;
    } else if (edit.inserted && !inserted) {
      // Nothing the code takes, or a message without one code (F12): the field stays.
    } else if (rejected && edit.inserted && inserted.length < length) {
      rejected = false;
      selected = -1;
      hole = -1;
      value = inserted;
    } else if (inserted.length === length) {
      rejected = false;
      selected = -1;
      hole = -1;
      value = inserted;
    } else if (!edit.inserted) {
      // The caret is pinned (F11): a delete clears the highlighted cell or the last one.
      if (rejected) {
        rejected = false;
        value = '';
        selected = -1;
        hole = -1;
      } else if (edit.start === 0 && edit.end >= value.length) {
        value = '';
        selected = -1;
        hole = -1;
      } else {
        backspace();
      }
    } else {
      // A key lands in the highlighted cell, wherever the caret was (F11).
      for (const ch of inserted) put(ch);
    }
    input.value = value;
    if (document.activeElement === input) input.setSelectionRange(value.length, value.length);
    afterEdit(previous);
  }

  // One character into the highlighted cell: the selection, a cleared cell, or the end.
  function put(ch) {
    if (selected >= 0) {
      const at = hole >= 0 && hole < selected ? selected - 1 : selected;
      value = value.slice(0, at) + ch + value.slice(at + 1);
      selected = -1;
    } else if (hole >= 0) {
      value = value.slice(0, hole) + ch + value.slice(hole);
      hole = -1;
    } else if (value.length < length) {
      value += ch;
    }
  }

  // Backspace: a selected cell is cleared and stays highlighted (F11); else the last goes.
  function backspace() {
    if (selected >= 0 && hole < 0) {
      value = value.slice(0, selected) + value.slice(selected + 1);
      hole = selected;
      selected = -1;
    } else if (hole > 0) {
      value = value.slice(0, hole - 1) + value.slice(hole);
      hole -= 1;
    } else if (hole < 0) {
      value = value.slice(0, -1);
    }
  }

  // Tap to correct (F11): a filled cell is selected, so the next key replaces only it.
  function select(index) {
    if (!editable() || typing) return;
    const chars = shown();
    if (index < 0 || index >= length || !chars[index]) {
      selected = -1;
    } else {
      if (hole >= 0 && hole !== index) hole = -1;
      selected = hole >= 0 ? -1 : index;
      if (rejected) {
        rejected = false;
        if (phase === 'invalid') setStatus('', 'neutral');
        phase = 'filling';
      }
    }
    render();
  }

  // The arrow keys move the selection one filled cell left or right; right past the last
  // filled cell goes back to the end.
  function moveSelection(step) {
    const chars = shown();
    let at = (selected >= 0 ? selected : highlighted() >= 0 ? highlighted() : length) + step;
    while (at >= 0 && at < length && !chars[at]) at += step;
    if (at < 0) return;
    select(at < length ? at : -1);
  }

  input.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    moveSelection(event.key === 'ArrowLeft' ? -1 : 1);
  });

  // A click lands on the input that covers the cells; the cell under it is selected. A click
  // without a pointer (detail 0: a screen reader's or the keyboard's activation) selects
  // nothing, so assistive technology keeps one field (F10).
  input.addEventListener('click', (event) => {
    if (!event.detail) return;
    const index = cells.findIndex((cell) => {
      const box = cell.getBoundingClientRect();
      return event.clientX >= box.left && event.clientX <= box.right;
    });
    if (index >= 0) select(index);
  });

  input.addEventListener('input', (event) => {
    if (event.isComposing) return;
    const typed = event.inputType === 'insertText' && typeof event.data === 'string' ? event.data : null;
    onText(pastedText(event), typed);
  });
  input.addEventListener('compositionend', () => onText());

  // The text of a paste, a drop or a replacement, from the event when the browser gives it.
  function pastedText(event) {
    const kind = event.inputType || '';
    if (!kind.startsWith('insertFrom') && kind !== 'insertReplacementText') return null;
    if (typeof event.data === 'string') return event.data;
    const transfer = event.dataTransfer;
    return transfer ? transfer.getData('text/plain') : null;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!editable()) return;
    if (complete() && !rejected) {
      lastSubmitted = null;
      maybeSubmit();
    } else {
      input.focus();
    }
  });

  // ---- The code arriving by itself (S1, WebOTP).

  function typeIn(raw) {
    const code = normalizeUncut(raw).slice(0, length);
    if (code.length !== length || !editable() || typing) return;
    value = '';
    selected = -1;
    hole = -1;
    rejected = false;
    canRetry = false;
    showRetry(false);
    if (phase === 'invalid') setStatus('', 'neutral');
    phase = 'filling';
    typing = true;
    let count = 0;
    const step = () => {
      if (!typing) return;
      count += 1;
      value = code.slice(0, count);
      render();
      pop(count - 1);
      if (count < length) {
        window.setTimeout(step, typingInterval);
      } else {
        typing = false;
        render();
        maybeSubmit();
      }
    };
    render();
    renderResend();
    window.setTimeout(step, typingInterval);
  }

  function startWebOTP() {
    if (otpAbort || !('OTPCredential' in window) || !navigator.credentials || !editable()) return;
    const controller = new AbortController();
    otpAbort = controller;
    const done = () => {
      if (otpAbort === controller) otpAbort = null;
    };
    navigator.credentials
      .get({ otp: { transport: ['sms'] }, signal: controller.signal })
      .then((credential) => {
        done();
        if (!controller.signal.aborted && credential && credential.code) typeIn(credential.code);
      }, done);
  }

  function stopWebOTP() {
    if (otpAbort) otpAbort.abort();
    otpAbort = null;
  }

  window.addEventListener('pagehide', () => {
    stopWebOTP();
    stopTicker();
  });
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted || finished()) return;
    startTicker();
    startWebOTP();
  });

  // ---- Resend (V6).

  function showToast(sentence) {
    toast.textContent = sentence;
    toast.classList.add('is-visible');
    window.clearTimeout(toastTimer);
    toastTimer = window.setTimeout(() => toast.classList.remove('is-visible'), toastDuration);
  }

  async function doResend() {
    if (!resendEnabled()) return;
    resending = true;
    renderResend();
    let answer;
    try {
      answer = await post(urls.resend, {});
    } catch (error) {
      answer = null;
    }
    resending = false;
    const body = answer && answer.json;
    if (answer && answer.ok && body) {
      newCode(body.verification || body);
      return;
    }
    const error = body && body.error;
    const code = error ? error.code : '';
    const retryAfter = error && typeof error.retryAfter === 'number' ? error.retryAfter : 0;
    let sentence = text.networkFailure;
    // No answer, or "too soon" after one that was lost: a code may have gone out all the same,
    // and its expiry is the one that counts (V9).
    const mayHaveSent = !answer || code === 'resend_too_soon';
    if (code === 'resend_too_soon') {
      restartCountdown(retryAfter);
      sentence = '';
    } else if (code === 'max_sends_reached') {
      resendAt = null;
      sentence = text.maxSendsReached;
    } else if (code === 'delivery_failed') {
      sentence = text.deliveryFailed;
    } else if (code === 'start_refused') {
      sentence = text.startRefused;
    } else if (code === 'destination_blocked') {
      restartCountdown(retryAfter);
      sentence = text.destinationPaused.replace('{time}', minutesSeconds(retryAfter));
    } else if (code === 'rate_limited') {
      restartCountdown(retryAfter);
      sentence = text.rateLimited.replace('{time}', minutesSeconds(retryAfter));
    } else if (code === 'not_found') {
      close(text.notFound);
      return;
    } else if (code === 'not_pending') {
      await notPendingAnswered(phase);
      return;
    }
    if (sentence) {
      setStatus(sentence, 'error');
      announce(sentence, true);
    }
    renderResend();
    if (mayHaveSent) refreshAfterResend();
  }

  // The server's state after a resend without an answer: a later expiry than the page knows is a
  // code that went out, taken as if the answer had come.
  async function refreshAfterResend() {
    const known = expiresAt;
    const state = await fetchState();
    const verification = state && state.ok && state.body && state.body.verification;
    if (!verification || verification.status !== 'pending' || !verification.expiresAt) return;
    if (known !== null && Date.parse(verification.expiresAt) <= known) return;
    newCode(verification);
  }

  // A new code was sent: the field starts again and the page says so (V6).
  function newCode(verification) {
    adopt(verification);
    value = '';
    selected = -1;
    hole = -1;
    rejected = false;
    lastSubmitted = null;
    canRetry = false;
    showRetry(false);
    phase = 'idle';
    setStatus('', 'neutral');
    render();
    renderResend();
    showToast(text.newCodeSent);
    announce(text.newCodeSent, false);
    input.focus();
    stopWebOTP();
    startWebOTP();
  }

  if (resendForm) {
    resendForm.addEventListener('submit', (event) => {
      event.preventDefault();
      doResend();
    });
  }

  // ---- Start: the normalisation table and the verification's state.

  async function loadTable() {
    if (!urls.normalize) return;
    try {
      const response = await fetch(urls.normalize, { credentials: 'same-origin' });
      if (!response.ok) return;
      const loaded = await response.json();
      if (loaded && Array.isArray(loaded.decimalZeros)) table = Object.assign({}, table, loaded);
    } catch (error) {
      // ASCII digits still work.
    }
  }

  // The verification's state and the page's sentences from the server, with the server's clock
  // read against the device's; `null` when no answer came.
  async function fetchState() {
    if (!urls.state) return null;
    const sent = Date.now();
    let response;
    let body;
    try {
      response = await fetch(urls.state, {
        headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store',
      });
      body = await response.json();
    } catch (error) {
      return null;
    }
    const received = Date.now();
    if (body && body.strings) text = Object.assign({}, text, body.strings);
    if (response.ok && body && body.now) {
      const now = Date.parse(body.now);
      // An offset within half the round trip cannot be told from none: the clocks agree.
      const offset = now - (sent + received) / 2;
      if (!Number.isNaN(offset) && Math.abs(offset) > (received - sent) / 2) clockOffset = offset;
    }
    return { ok: response.ok, body };
  }

  // Loads the state at start; true once the server answered (an error answer included).
  async function loadState() {
    if (!urls.state) return true;
    const state = await fetchState();
    if (!state) return false;
    const body = state.body;
    if (!state.ok) {
      const code = body && body.error && body.error.code;
      if (code === 'not_found') close(text.notFound);
      // A store that could not answer now may answer later.
      return code !== 'store_unavailable';
    }
    if (body.verification) {
      adopt(body.verification);
      applyStatus(body.verification.status, true);
    }
    return true;
  }

  // Without the state the page knows neither the server's clock nor when Resend opens: it asks
  // again, 2, 4, 8 … seconds later (at most a minute apart), until the server answers.
  function loadStateUntilAnswered(wait) {
    window.setTimeout(async () => {
      if (finished()) return;
      if (await loadState()) {
        if (finished()) return;
        render();
        renderResend();
        return;
      }
      loadStateUntilAnswered(Math.min(wait * 2, 60000));
    }, wait);
  }

  render();
  if (document.activeElement === document.body || !document.activeElement) {
    input.focus({ preventScroll: true });
  }
  Promise.all([loadTable(), loadState()]).then(([, answered]) => {
    if (finished()) return;
    render();
    renderResend();
    startTicker();
    startWebOTP();
    if (!answered) loadStateUntilAnswered(2000);
  });
})();
