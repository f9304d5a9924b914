'use strict';

// The sample's lock names; names seen in /actuator/locks are added as they show up.
// Roles are shown by /actuator/leaders, so their lock (zk-lock-leaders) is not listed here.
const lockNames = new Set(['stock', 'order', 'payment-gateway']);

async function fetchJson(path) {
	const response = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
	if (response.status === 404) {
		return null;
	}
	// health answers 503 with a body when ZooKeeper is down
	if (!response.ok && response.status !== 503) {
		throw new Error(path + ' answered ' + response.status);
	}
	return response.json();
}

function text(id, value) {
	document.getElementById(id).textContent = value;
}

function age(since) {
	if (!since) {
		return '';
	}
	const millis = Date.now() - Date.parse(since);
	return millis < 1000 ? Math.max(millis, 0) + ' ms' : (millis / 1000).toFixed(1) + ' s';
}

function owner(value) {
	if (!value) {
		return '';
	}
	try {
		const data = JSON.parse(value);
		return [data.app, data.host && '@' + data.host, data.pid && 'pid ' + data.pid, data.thread]
			.filter(Boolean).join(' ');
	}
	catch (e) {
		return value;
	}
}

// Builds a row from plain text cells: keys are user input and never become markup.
function row(cells, state, data) {
	const tr = document.createElement('tr');
	tr.className = state;
	Object.entries(data).forEach(([name, value]) => { tr.dataset[name] = value; });
	cells.forEach((cell) => {
		const td = document.createElement('td');
		td.textContent = cell === null || cell === undefined ? '' : String(cell);
		tr.appendChild(td);
	});
	return tr;
}

function fill(tableId, emptyId, rows) {
	const body = document.querySelector('#' + tableId + ' tbody');
	body.replaceChildren(...rows);
	document.getElementById(emptyId).hidden = rows.length > 0;
}

function showHealth(health) {
	const zk = (health && health.components && health.components.zkLock) || {};
	const details = zk.details || {};
	const status = document.getElementById('zk-status');
	status.textContent = zk.status || 'UNKNOWN';
	status.className = 'badge ' + (zk.status || '');
	text('zk-state', details.connectionState || '?');
	text('zk-connect', details.connectString || '?');
	text('zk-session', details.sessionId
		? details.sessionId + ', timeout ' + details.sessionTimeoutMillis + ' ms' : 'none');
	text('zk-counts', (details.locksHeld ?? '?') + ' held, ' + (details.locksWaiting ?? '?') + ' waiting');
}

function showLocal(locks) {
	const rows = (locks && locks.locks) || [];
	rows.filter((lock) => lock.name !== 'zk-lock-leaders').forEach((lock) => lockNames.add(lock.name));
	fill('local-locks', 'local-empty', rows.map((lock) => row(
		[lock.name, lock.key, lock.mode, lock.state, lock.thread, age(lock.since), lock.fencingToken],
		lock.state, { lockName: lock.name, lockKey: lock.key === null ? '' : lock.key, state: lock.state })));
}

function showQueues(queues) {
	const rows = [];
	queues.filter(Boolean).forEach((queue) => {
		queue.keys.forEach((key) => {
			key.participants.forEach((p, index) => {
				rows.push(row([queue.name, key.key, index + 1, p.state, p.mode, owner(p.owner), p.sessionId,
					age(p.created), p.fencingToken], p.state,
					{ lockName: queue.name, lockKey: key.key === null ? '' : key.key, state: p.state }));
			});
		});
	});
	fill('queues', 'queues-empty', rows);
}

function showLeaders(leaders) {
	const roles = Object.values((leaders && leaders.roles) || {});
	fill('leaders', 'leaders-empty', roles.map((role) => {
		const leader = role.leader;
		const state = role.leading ? 'LEADING' : (leader ? 'STANDING_BY' : 'NO_LEADER');
		return row([role.role, leader ? owner(leader.owner) : 'nobody', role.leading ? 'yes' : 'no',
			leader ? leader.fencingToken : '', leader ? age(leader.since) : '',
			role.candidates.map((candidate) => owner(candidate.owner)).join(', ')], state,
		{ role: role.role, state: state });
	}));
}

function showReadiness(readiness) {
	const badge = document.getElementById('readiness');
	badge.textContent = readiness || '?';
	badge.className = 'badge ' + (readiness === 'ACCEPTING_TRAFFIC' ? 'UP' : 'OUT_OF_SERVICE');
	document.getElementById('readiness-switch').textContent =
		readiness === 'ACCEPTING_TRAFFIC' ? 'Refuse traffic' : 'Accept traffic';
}

async function refresh() {
	try {
		// one round of parallel requests, so that the tables show about the same moment
		const names = Array.from(lockNames);
		const [health, locks, leaders, readiness, ...queues] = await Promise.all([fetchJson('/actuator/health'),
			fetchJson('/actuator/locks'), fetchJson('/actuator/leaders'), fetchJson('/instance/readiness'),
			...names.map((name) => fetchJson('/actuator/locks/' + encodeURIComponent(name)))]);
		showHealth(health);
		showReadiness(readiness);
		showLocal(locks);
		showLeaders(leaders);
		showQueues(queues);
		text('updated', new Date().toLocaleTimeString());
		document.getElementById('error').hidden = true;
	}
	catch (e) {
		const error = document.getElementById('error');
		error.textContent = 'Update failed: ' + e.message;
		error.hidden = false;
	}
	finally {
		setTimeout(refresh, 1000);
	}
}

async function post(path, body) {
	const response = await fetch(path, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
		body: body ? JSON.stringify(body) : undefined
	});
	return { status: response.status, body: await response.json() };
}

async function makeTraffic() {
	const result = document.getElementById('traffic-result');
	result.textContent = 'running...';
	const orders = await Promise.all(Array.from({ length: 12 },
		() => post('/orders', { warehouse: 'berlin', sku: 'mug', quantity: 1 })));
	const placed = orders.filter((o) => o.status === 201);
	const payments = await Promise.all(placed.map((o) => post('/orders/' + o.body.id + '/payment')));
	const paid = payments.filter((p) => p.status === 200).length;
	result.textContent = placed.length + ' placed, ' + paid + ' paid, ' + (payments.length - paid)
		+ ' turned away by a busy gateway';
}

document.getElementById('readiness-switch').addEventListener('click', async () => {
	const accepting = document.getElementById('readiness').textContent === 'ACCEPTING_TRAFFIC';
	const state = accepting ? 'REFUSING_TRAFFIC' : 'ACCEPTING_TRAFFIC';
	const response = await fetch('/instance/readiness?state=' + state, { method: 'PUT' });
	showReadiness(await response.json());
});
document.getElementById('traffic').addEventListener('click', () => {
	makeTraffic().catch((e) => { document.getElementById('traffic-result').textContent = 'failed: ' + e.message; });
});
refresh();
