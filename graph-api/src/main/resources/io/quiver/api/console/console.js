'use strict';
/*
 * The Quiver admin console: plain JavaScript over the admin API, no build step. The admin token
 * lives in sessionStorage (this tab only) and goes with every call as a bearer token. Pages:
 * cluster (status, shard map, retry of parked outbox entries), schema (types, and a definition
 * checked with ?dryRun=true before it is applied), explorer (a node, its edge lists with counts,
 * each edge's inverse copy checked), charts (this server's /metrics, every 2 s).
 */
(() => {
  const TOKEN_KEY = 'quiver.token';
  const $ = (id) => document.getElementById(id);
  const token = () => sessionStorage.getItem(TOKEN_KEY);
  let schema = null;

  class ApiError extends Error {
    constructor(status, code, message, details) {
      super(message);
      this.status = status;
      this.code = code;
      this.details = details || {};
    }
  }

  async function api(method, path, body) {
    const headers = {};
    if (token()) headers.Authorization = 'Bearer ' + token();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {method, headers, body});
    const text = await response.text();
    let json = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch (e) {
      json = {};
    }
    if (!response.ok) {
      const error = json.error || {};
      throw new ApiError(response.status, error.code || 'error', error.message || response.statusText, error.details);
    }
    return json;
  }

  /** An element with text children only (never HTML from the server). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([name, value]) => {
      if (name === 'onclick') node.addEventListener('click', value);
      else if (value !== undefined && value !== null) node.setAttribute(name, value);
    });
    children.flat().forEach((child) => node.append(child instanceof Node ? child : String(child)));
    return node;
  }

  function fill(tbody, rows) {
    tbody.replaceChildren(...rows.map((cells) => el('tr', {}, cells.map((cell) => el('td', {}, cell)))));
  }

  // ---- pages ----

  const pages = {cluster: loadCluster, schema: loadSchema, explorer: () => {}, charts: startCharts};

  function route() {
    const page = token() ? (location.hash.slice(1) || 'cluster') : 'sign-in';
    document.querySelectorAll('.page').forEach((section) => { section.hidden = section.id !== page; });
    document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.page === page));
    $('nav').hidden = !token();
    if (page !== 'charts') stopCharts();
    if (pages[page]) pages[page]().catch(signOutIfRefused);
  }

  function signOutIfRefused(error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      sessionStorage.removeItem(TOKEN_KEY);
      $('sign-in-error').textContent = error.message;
      $('sign-in-error').hidden = false;
      route();
    } else {
      console.error(error);
    }
  }

  $('sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
    try {
      await api('GET', '/v1/admin/status');
      $('sign-in-error').hidden = true;
      $('token').value = '';
      if (!location.hash || location.hash === '#sign-in') location.hash = '#cluster';
      route();
    } catch (error) {
      sessionStorage.removeItem(TOKEN_KEY);
      $('sign-in-error').textContent = error.message;
      $('sign-in-error').hidden = false;
    }
  });

  $('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    route();
  });

  window.addEventListener('hashchange', route);

  // ---- cluster ----

  async function loadCluster() {
    const [status, map, moving, failovers] = await Promise.all([api('GET', '/v1/admin/status'),
      api('GET', '/v1/admin/shard-map'), api('GET', '/v1/admin/shards/move'), api('GET', '/v1/admin/failovers')]);
    showMove(moving.move);
    $('versions').textContent = `shard map version ${status.shardMapVersion} · schema version ${status.schemaVersion}`
        + ` · ZooKeeper ${status.zookeeper}`;
    fill($('hosts').tBodies[0], Object.entries(status.hosts).map(([name, host]) => {
      const outbox = host.outbox || {};
      const retry = el('button', {type: 'button', 'data-host': name, onclick: () => retryParked(name)}, 'Retry parked');
      const lags = host.replicaLagMs || {};
      const replicas = (host.replicas || []).map((r) => r in lags ? `${r} (lag ${lags[r] < 0 ? '?' : lags[r] + ' ms'})` : r);
      return [name, host.primary, replicas.join(', ') || '–', el('span', {class: host.state}, host.state),
        host.shards, host.poolConnections,
        outbox.pending ?? '–', outbox.parked ?? '–', outbox.oldestPendingAgeMs ?? '–', retry];
    }));
    fill($('ranges').tBodies[0], shardRuns(map));
    // The most recent first.
    fill($('failovers').tBodies[0], failovers.failovers.slice().reverse().map((f) =>
      [f.at, f.host, f.planned ? 'switchover' : 'failover', f.from, f.to, f.unreachableMs, f.writesRefusedMs,
        f.oldPrimary]));
    $('failovers-none').hidden = failovers.failovers.length > 0;
  }

  /** The ranges split into runs of one state and openness, so what differs shows. */
  function shardRuns(map) {
    const open = (shard) => map.open.some(([from, to]) => shard >= from && shard <= to);
    const state = (shard) => map.state[String(shard)] || 'read-write';
    const runs = [];
    map.ranges.forEach((range) => {
      let start = range.from;
      for (let shard = range.from; shard <= range.to; shard++) {
        const last = shard === range.to || state(shard + 1) !== state(shard) || open(shard + 1) !== open(shard);
        if (last) {
          runs.push([start === shard ? String(shard) : `${start}–${shard}`, range.host, state(shard),
            open(shard) ? 'yes' : 'no']);
          start = shard + 1;
        }
      }
    });
    return runs;
  }

  /** The shard move under way, if any, with who runs it and a way to cancel it before its cut-over. */
  function showMove(move) {
    const line = $('move');
    line.replaceChildren();
    if (!move) {
      line.textContent = 'No shard move is under way.';
      return;
    }
    line.append(`Shards ${move.shards} are moving from ${move.from} to ${move.to}: phase ${move.phase}, `
        + (move.runner ? `run by server ${move.runner}. ` : `run by no server now (rerun the move to resume it). `));
    if (move.phase !== 'cleanup') {
      line.append(el('button', {type: 'button', id: 'cancel-move', onclick: cancelMove}, 'Cancel the move'));
    }
  }

  async function cancelMove() {
    try {
      await api('POST', '/v1/admin/shards/move/cancel');
      await loadCluster();
    } catch (error) {
      $('move').textContent = error.message;
      signOutIfRefused(error);
    }
  }

  async function retryParked(host) {
    try {
      const answer = await api('POST', '/v1/admin/outbox/retry-parked', JSON.stringify({host}));
      $('retry-result').textContent = `${answer.retried} parked entries on ${host} are due again`;
      await loadCluster();
    } catch (error) {
      $('retry-result').textContent = error.message;
      signOutIfRefused(error);
    }
  }

  // ---- schema ----

  async function loadSchema() {
    schema = await api('GET', '/v1/schema');
    $('schema-version').textContent = `version ${schema.version}`;
    fill($('node-types').tBodies[0], Object.entries(schema.nodeTypes).map(([name, type]) =>
      [name, type.id, type.strict ? 'yes' : 'no', describeFields(type.fields)]));
    fill($('edge-types').tBodies[0], Object.entries(schema.edgeTypes).map(([name, type]) =>
      [name, type.id, `${type.from} → ${type.to}`, type.inverse || '–', describeFields(type.fields)]));
  }

  function describeFields(fields) {
    const described = Object.entries(fields || {}).map(([name, def]) => {
      let text = `${name}: ${def.type}`;
      if ('default' in def) text += ` = ${JSON.stringify(def.default)}`;
      if (def.required) text += ' (required)';
      if (def.unique) text += ' (unique)';
      return text;
    });
    return described.length ? described.join(', ') : '–';
  }

  let checked = null;

  function definitionPath(dryRun) {
    const query = [];
    if (dryRun) query.push('dryRun=true');
    if ($('define-defaults').checked) query.push('changeDefaults=true');
    return `/v1/schema/${$('define-kind').value}-types/${encodeURIComponent($('define-name').value)}`
        + (query.length ? '?' + query.join('&') : '');
  }

  function verdict(kind, ...lines) {
    const box = $('verdict');
    box.className = kind;
    box.replaceChildren(...lines.map((line) => el('p', {}, line)));
    box.hidden = false;
  }

  function definitionText() {
    const text = $('define-body').value;
    JSON.parse(text);
    return text;
  }

  $('define-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('define-apply').disabled = true;
    checked = null;
    let text;
    try {
      text = definitionText();
    } catch (error) {
      verdict('refused', 'The definition is not JSON: ' + error.message);
      return;
    }
    try {
      const would = await api('PUT', definitionPath(true), text);
      const current = schema || await api('GET', '/v1/schema');
      if (would.version === current.version) {
        verdict('allowed', 'Allowed, and nothing would change: the registry already defines it so.');
        return;
      }
      verdict('allowed', `Allowed: applying publishes schema version ${would.version}.`,
        ...changes(current, would, $('define-kind').value + 'Types', $('define-name').value));
      checked = {path: definitionPath(false), text};
      $('define-apply').disabled = false;
    } catch (error) {
      verdict('refused', refusal(error));
      signOutIfRefused(error);
    }
  });

  function refusal(error) {
    return (error.details.rule ? `Refused by rule ${error.details.rule}` : 'Refused')
        + ` (${error.status} ${error.code}): ${error.message}`;
  }

  $('define-body').addEventListener('input', () => { $('define-apply').disabled = true; });

  $('define-apply').addEventListener('click', async () => {
    if (!checked) return;
    try {
      const published = await api('PUT', checked.path, checked.text);
      verdict('allowed', `Defined: schema version ${published.version}.`);
      $('define-apply').disabled = true;
      checked = null;
      await loadSchema();
    } catch (error) {
      verdict('refused', refusal(error));
    }
  });

  /** What a definition changes, field by field, as lines. */
  function changes(before, after, member, name) {
    const was = before[member][name];
    const is = after[member][name];
    if (!was) return [`New ${member === 'nodeTypes' ? 'node' : 'edge'} type ${name}: ${describeFields(is.fields)}`];
    const lines = [];
    Object.entries(is.fields || {}).forEach(([field, def]) => {
      const old = (was.fields || {})[field];
      if (!old) lines.push(`+ ${field}: ${describeFields({[field]: def}).replace(field + ': ', '')}`);
      else if (JSON.stringify(old) !== JSON.stringify(def)) lines.push(`~ ${field}: ${JSON.stringify(old)} → ${JSON.stringify(def)}`);
    });
    Object.keys(was.fields || {}).filter((field) => !(field in (is.fields || {})))
        .forEach((field) => lines.push(`− ${field} (retired: it can come back only as it was)`));
    return lines;
  }

  // ---- explorer ----

  $('lookup-id').addEventListener('submit', (event) => {
    event.preventDefault();
    explore(() => api('GET', '/v1/nodes/' + encodeURIComponent($('node-id').value.trim())));
  });

  $('lookup-key').addEventListener('submit', (event) => {
    event.preventDefault();
    explore(() => api('GET', `/v1/nodes/${encodeURIComponent($('key-type').value)}/by/`
        + `${encodeURIComponent($('key-field').value)}?value=${encodeURIComponent($('key-value').value)}`));
  });

  async function explore(load) {
    try {
      schema = schema || await api('GET', '/v1/schema');
      const node = await load();
      $('explorer-error').hidden = true;
      showNode(node);
    } catch (error) {
      $('node').hidden = true;
      $('explorer-error').textContent = error.message;
      $('explorer-error').hidden = false;
      signOutIfRefused(error);
    }
  }

  function showNode(node) {
    $('node-id').value = node.id;
    $('node-title').textContent = `${node.type} ${node.id}`;
    $('node-meta').textContent = `shard ${node.shard} · version ${node.version} · created ${node.createdAt}`
        + ` · updated ${node.updatedAt}`;
    $('node-data').textContent = JSON.stringify(node.data, null, 2);
    const lists = Object.entries(schema.edgeTypes).filter(([, type]) => type.from === node.type);
    $('edge-lists').replaceChildren(...lists.map(([name, type]) => edgeList(node, name, type)));
    if (!lists.length) $('edge-lists').append(el('p', {class: 'muted'}, 'No edge type leaves a ' + node.type + '.'));
    $('node').hidden = false;
  }

  function edgeList(node, name, type) {
    const box = el('div', {class: 'edge-list', 'data-edge-type': name});
    const heading = el('h4', {}, name);
    const table = el('table', {}, el('thead', {}, el('tr', {},
        ['To', 'Sequence', 'State', 'Updated', 'Inverse copy'].map((h) => el('th', {}, h)))), el('tbody'));
    const more = el('button', {type: 'button', hidden: 'hidden'}, 'More');
    box.append(heading, table, more);
    const base = `/v1/nodes/${node.id}/edges/${name}`;
    api('GET', base + '/count').then((answer) => heading.append(` (${answer.count})`));
    const page = async (after) => {
      const answer = await api('GET', `${base}?limit=10${after ? '&after=' + encodeURIComponent(after) : ''}`);
      for (const edge of answer.edges) {
        const inverse = el('span', {class: 'muted'}, type.inverse ? 'checking…' : 'no inverse');
        const follow = el('a', {href: '#explorer', onclick: (event) => {
          event.preventDefault();
          explore(() => api('GET', '/v1/nodes/' + edge.to));
        }}, edge.to);
        table.tBodies[0].append(el('tr', {}, [follow, edge.sequence, edge.state || 'active', edge.updatedAt, inverse]
            .map((cell) => el('td', {}, cell))));
        if (type.inverse) checkInverse(edge, node.id, type.inverse, inverse);
      }
      more.hidden = !answer.next;
      more.onclick = () => page(answer.next);
    };
    page(null).catch(signOutIfRefused);
    return box;
  }

  /**
   * The inverse copy of an edge, read and compared: the two copies share state, sequence and write
   * time (each renders its data with its own type's defaults, so data is not compared here).
   */
  async function checkInverse(edge, from, inverse, cell) {
    try {
      const copy = await api('GET', `/v1/nodes/${edge.to}/edges/${inverse}/${from}`);
      const state = (e) => e.state || 'active';
      const same = state(copy) === state(edge) && String(copy.sequence) === String(edge.sequence)
          && copy.updatedAt === edge.updatedAt;
      cell.className = same ? 'matches' : 'differs';
      cell.textContent = same ? 'matches'
          : `differs: ${state(copy)}, sequence ${copy.sequence}, written ${copy.updatedAt}`;
    } catch (error) {
      cell.className = 'missing';
      cell.textContent = error.status === 404 ? 'missing' : error.message;
    }
  }

  // ---- charts ----

  const POINTS = 60;
  let timer = null;
  let charts = null;
  let previous = null;

  function stopCharts() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  async function startCharts() {
    if (!charts) {
      const line = (id, labels) => new Chart($(id), {
        type: 'line',
        data: {labels: [], datasets: labels.map((label) => ({label, data: [], pointRadius: 0, borderWidth: 2}))},
        options: {animation: false, responsive: true, scales: {y: {beginAtZero: true}}},
      });
      charts = {rate: line('chart-rate', ['requests/s']), latency: line('chart-latency', ['p50', 'p99']),
        cache: line('chart-cache', []), outbox: line('chart-outbox', [])};
    }
    stopCharts();
    await sample();
    timer = setInterval(() => sample().catch((error) => console.error(error)), 2000);
  }

  /** Prometheus text to {name: [{labels, value}]}. */
  function parseMetrics(text) {
    const metrics = {};
    text.split('\n').forEach((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (!match || line.startsWith('#')) return;
      const labels = {};
      (match[2] || '').replace(/([a-zA-Z_]+)="([^"]*)"/g, (all, key, value) => { labels[key] = value; });
      (metrics[match[1]] = metrics[match[1]] || []).push({labels, value: Number(match[3])});
    });
    return metrics;
  }

  const sum = (series, filter) => (series || []).filter(filter || (() => true)).reduce((a, s) => a + s.value, 0);

  /** A quantile from the change of a histogram's buckets between two samples, in ms. */
  function quantile(q, now, before) {
    const buckets = new Map();
    (now.quiver_requests_seconds_bucket || []).forEach((s) => buckets.set(s.labels.le, (buckets.get(s.labels.le) || 0) + s.value));
    (before.quiver_requests_seconds_bucket || []).forEach((s) => buckets.set(s.labels.le, (buckets.get(s.labels.le) || 0) - s.value));
    const sorted = [...buckets.entries()].map(([le, count]) => [le === '+Inf' ? Infinity : Number(le), count])
        .sort((a, b) => a[0] - b[0]);
    const total = sorted.length ? sorted[sorted.length - 1][1] : 0;
    if (total <= 0) return 0;
    let lower = 0;
    let below = 0;
    for (const [le, count] of sorted) {
      if (count >= q * total) {
        if (le === Infinity) return lower * 1000;
        return (lower + (le - lower) * ((q * total - below) / Math.max(count - below, 1))) * 1000;
      }
      lower = le;
      below = count;
    }
    return lower * 1000;
  }

  function push(chart, label, values) {
    chart.data.labels.push(label);
    values.forEach(([name, value]) => {
      let dataset = chart.data.datasets.find((d) => d.label === name);
      if (!dataset) {
        dataset = {label: name, data: new Array(chart.data.labels.length - 1).fill(null), pointRadius: 0, borderWidth: 2};
        chart.data.datasets.push(dataset);
      }
      dataset.data.push(value);
    });
    if (chart.data.labels.length > POINTS) {
      chart.data.labels.shift();
      chart.data.datasets.forEach((d) => d.data.shift());
    }
    chart.update();
  }

  async function sample() {
    const response = await fetch('/metrics');
    const now = {at: Date.now(), metrics: parseMetrics(await response.text())};
    if (previous) {
      const seconds = (now.at - previous.at) / 1000;
      const label = new Date(now.at).toLocaleTimeString();
      const m = now.metrics;
      const p = previous.metrics;
      push(charts.rate, label, [['requests/s',
        (sum(m.quiver_requests_seconds_count) - sum(p.quiver_requests_seconds_count)) / seconds]]);
      push(charts.latency, label, [['p50', quantile(0.5, m, p)], ['p99', quantile(0.99, m, p)]]);
      const caches = [...new Set((m.quiver_cache_hits_total || []).map((s) => s.labels.cache))];
      push(charts.cache, label, caches.map((cache) => {
        const only = (s) => s.labels.cache === cache;
        const hits = sum(m.quiver_cache_hits_total, only) - sum(p.quiver_cache_hits_total, only);
        const misses = sum(m.quiver_cache_misses_total, only) - sum(p.quiver_cache_misses_total, only);
        return [cache, hits + misses > 0 ? hits / (hits + misses) : null];
      }));
      push(charts.outbox, label, (m.quiver_outbox_oldest_pending_age_seconds || [])
          .map((s) => [s.labels.host, s.value]));
    }
    previous = now;
  }

  route();
})();
