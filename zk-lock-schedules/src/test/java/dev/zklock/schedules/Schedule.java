package dev.zklock.schedules;

import java.io.Serializable;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.zklock.annotation.LockMode;

/**
 * A generated schedule: lock operations of a few clients, each with a few worker
 * threads, interleaved with faults, each at an offset from the schedule's start.
 *
 * @param steps the operations, in the order each worker runs them
 * @param faults the faults
 */
record Schedule(List<Step> steps, List<FaultStep> faults) implements Serializable {

	/** Clients in a schedule, each behind its own proxy. */
	static final int CLIENTS = 3;

	/**
	 * Worker threads per client: three, so that two local waiters of one client can
	 * queue behind a third's tenure of a key with local hand-off.
	 */
	static final int WORKERS = 3;

	/** Where the generated operations start, at the latest. */
	static final long SPAN_MILLIS = 4_000;

	/** Lock names and how they are taken. */
	enum Family {

		/** MUTEX only. */
		MUTEX("m", 1),

		/** READ and WRITE. */
		READ_WRITE("rw", 1),

		/** SEMAPHORE of two permits. */
		SEMAPHORE("s", 2);

		final String lockName;

		final int permits;

		Family(String lockName, int permits) {
			this.lockName = lockName;
			this.permits = permits;
		}

	}

	/** What a holder does inside its hold. */
	enum Nesting {

		/** Nothing. */
		NONE,

		/** Takes its own lock again. */
		REENTER,

		/** A WRITE holder takes READ on the same keys, releases it, then the WRITE. */
		READ_IN_WRITE,

		/** A WRITE holder takes READ on the same keys, releases the WRITE, then the READ. */
		DOWNGRADE

	}

	/** Faults a schedule can inject. */
	enum FaultKind {

		/** The server closes the client's session: its ephemeral nodes go at once. */
		EXPIRE,

		/** The client takes its session for expired while the server keeps it. */
		EXPIRE_ON_CLIENT,

		/** The proxy resets the client's connection. */
		DROP,

		/** The proxy swallows the client's traffic for well within its session. */
		BLACKHOLE_SHORT,

		/** The proxy swallows the client's traffic past its session. */
		BLACKHOLE_PAST_SESSION,

		/**
		 * The proxy lets the client's next create of a node of key b through, then
		 * swallows its traffic past its session: a connection that dies in the middle of
		 * an acquisition (of both keys: with key a taken).
		 */
		SILENT_AFTER_CREATE,

		/**
		 * The process stops for well within its session: no traffic, then its pause
		 * detector sees the gap as it runs again.
		 */
		PAUSE_WITHIN_SESSION,

		/** The process stops past its session, as above. */
		PAUSE_PAST_SESSION,

		/** The server stops and starts again (sessions survive); of an ensemble, a member. */
		SERVER_RESTART,

		/** The client's JVM is killed ({@code kill -9}) for the rest of the schedule. Soak only. */
		KILL(true),

		/** The client's JVM is stopped ({@code SIGSTOP}) for well within its session. Soak only. */
		STOP_WITHIN_SESSION(true),

		/** The client's JVM is stopped past its session. Soak only. */
		STOP_PAST_SESSION(true),

		/** The ensemble's leader stops and starts again. Soak only. */
		LEADER_RESTART(true),

		/** The leader is cut off from its followers by the firewall for a while. Soak only. */
		LEADER_ISOLATED(true),

		/** Every member is cut off from the others: no quorum for a while. Soak only. */
		QUORUM_LOST(true),

		/** The client's JVM is cut off from every member past its session. Soak only. */
		CUT_FROM_SERVERS(true);

		/** Needs the soak's process client, ensemble and firewall. */
		final boolean soakOnly;

		FaultKind() {
			this(false);
		}

		FaultKind(boolean soakOnly) {
			this.soakOnly = soakOnly;
		}

		/** Whether it hits the ensemble rather than one client. */
		boolean ofServers() {
			return this == SERVER_RESTART || this == LEADER_RESTART || this == LEADER_ISOLATED || this == QUORUM_LOST;
		}

		/** The kinds that the in-JVM server and the clients' proxies can inject. */
		static List<FaultKind> inJvm() {
			return Stream.of(values()).filter((kind) -> !kind.soakOnly).toList();
		}

	}

	/** An operation. */
	sealed interface Op extends Serializable permits Acquire, Revoke, DeleteNode, Nested, Lead {
	}

	/**
	 * Acquire, hold and release.
	 * @param family the lock name and its modes
	 * @param keys one key, or two for a lock on a collection of keys
	 * @param mode the mode, one of the family's
	 * @param async through the asynchronous manager
	 * @param timeoutMillis the request's timeout, 0 for a single try
	 * @param holdMillis how long to hold once granted
	 * @param nesting what to do inside the hold
	 * @param minHoldMillis the request's {@code minHold}, 0 for none
	 * @param maxHoldMillis the request's {@code maxHold}, 0 for none
	 * @param giveUpMillis interrupt (blocking) or cancel (async) a wait still under
	 * way after this long, 0 for never
	 * @param localHandoff through the client's local queue
	 * ({@code LockRequest.Builder.localHandoff}): the client's holders of one key in
	 * one mode pass it on without ZooKeeper within a tenure; only for one key in
	 * MUTEX, READ or WRITE mode
	 */
	record Acquire(Family family, List<String> keys, LockMode mode, boolean async, long timeoutMillis,
			long holdMillis, Nesting nesting, long minHoldMillis, long maxHoldMillis, long giveUpMillis,
			boolean localHandoff) implements Op {

		/** An acquisition with a node of its own, as every acquisition before local hand-off. */
		Acquire(Family family, List<String> keys, LockMode mode, boolean async, long timeoutMillis, long holdMillis,
				Nesting nesting, long minHoldMillis, long maxHoldMillis, long giveUpMillis) {
			this(family, keys, mode, async, timeoutMillis, holdMillis, nesting, minHoldMillis, maxHoldMillis,
					giveUpMillis, false);
		}

		/** Whether the engine hands it off locally: asked for, and one key in a mode of one node per holder. */
		static boolean canHandOff(List<String> keys, LockMode mode) {
			return keys.size() == 1 && mode != LockMode.SEMAPHORE;
		}

		@Override
		public String toString() {
			return (this.async ? "async " : "") + (this.localHandoff ? "handoff " : "") + this.mode + " "
					+ this.family.lockName + this.keys + " timeout="
					+ this.timeoutMillis + "ms hold=" + this.holdMillis + "ms"
					+ ((this.nesting != Nesting.NONE) ? " " + this.nesting : "")
					+ ((this.minHoldMillis > 0) ? " minHold=" + this.minHoldMillis + "ms" : "")
					+ ((this.maxHoldMillis > 0) ? " maxHold=" + this.maxHoldMillis + "ms" : "")
					+ ((this.giveUpMillis > 0) ? " giveUp=" + this.giveUpMillis + "ms" : "");
		}

	}

	/**
	 * Revoke whoever holds a key, as an operator would.
	 * @param family the lock name
	 * @param key the key
	 */
	record Revoke(Family family, String key) implements Op {

		@Override
		public String toString() {
			return "revoke " + this.family.lockName + "[" + this.key + "]";
		}

	}

	/**
	 * Delete the node of a key's holder with a plain ZooKeeper delete, as an operator
	 * or another client may: no revoke API, so nothing but the engine's own watch of
	 * the held node tells the holder (a leader is such a holder). It comes at its
	 * offset, on a timer rather than its step's worker, as an operator does not wait
	 * for a client's work.
	 * @param family the lock name
	 * @param key the key
	 */
	record DeleteNode(Family family, String key) implements Op {

		@Override
		public String toString() {
			return "delete node of " + this.family.lockName + "[" + this.key + "]";
		}

	}

	/** How a leader's step ends its leadership, once its work is done. */
	enum LeadExit {

		/** {@code yieldLeadership}: the role goes to the next, and the client joins again at the back. */
		YIELD,

		/** The client's readiness goes down: it stands aside, then, after a while, joins again at the back. */
		READINESS,

		/** It leads on until the step ends, when the client leaves the queue. */
		STAY

	}

	/**
	 * Join the role {@link LeaderSteps#ROLE} (at the back of its queue), wait for the
	 * leadership, and while it lasts do leader work (a fenced write every
	 * {@link LeaderSteps#WORK_INTERVAL}); then end as {@code exit} says, and leave the
	 * queue when the step ends. A client's leader steps run one after another on one
	 * worker.
	 * @param waitMillis how long to wait for the leadership
	 * @param leadMillis how long to work as the leader
	 * @param exit how the leadership ends
	 * @param asideMillis how long readiness stays down, for {@link LeadExit#READINESS}
	 */
	record Lead(long waitMillis, long leadMillis, LeadExit exit, long asideMillis) implements Op {

		@Override
		public String toString() {
			return "lead wait=" + this.waitMillis + "ms lead=" + this.leadMillis + "ms then " + this.exit
					+ ((this.exit == LeadExit.READINESS) ? " for " + this.asideMillis + "ms" : "");
		}

	}

	/**
	 * Nested acquisitions: take one key, hold it a while, then take a second key of the
	 * same lock name inside it, hold both a moment, release the inner and then the
	 * outer. Two of them in opposite orders on other workers make a deadlock, which
	 * the engine must find and break by failing exactly one of them (#42).
	 * @param family the lock name, MUTEX or READ_WRITE
	 * @param outerKey the key taken first
	 * @param outerMode its mode
	 * @param innerKey the key taken inside it
	 * @param innerMode its mode
	 * @param timeoutMillis each acquisition's timeout
	 * @param outerHoldMillis how long the outer lock is held before the inner one is asked for
	 * @param innerHoldMillis how long both are held once the inner one is granted
	 */
	record Nested(Family family, String outerKey, LockMode outerMode, String innerKey, LockMode innerMode,
			long timeoutMillis, long outerHoldMillis, long innerHoldMillis) implements Op {

		@Override
		public String toString() {
			return "nested " + this.outerMode + " " + this.family.lockName + "[" + this.outerKey + "] then "
					+ this.innerMode + " " + this.family.lockName + "[" + this.innerKey + "] timeout="
					+ this.timeoutMillis + "ms hold=" + this.outerHoldMillis + "+" + this.innerHoldMillis + "ms";
		}

	}

	/**
	 * An operation of one worker.
	 * @param client the client
	 * @param worker the client's worker thread
	 * @param atMillis not before this offset
	 * @param op what to do
	 */
	record Step(int client, int worker, long atMillis, Op op) implements Serializable {

		@Override
		public String toString() {
			return "@" + this.atMillis + "ms c" + this.client + "/w" + this.worker + " " + this.op;
		}

	}

	/**
	 * A fault.
	 * @param kind what
	 * @param client whose connection, ignored for a server restart
	 * @param atMillis at this offset
	 */
	record FaultStep(FaultKind kind, int client, long atMillis) implements Serializable {

		@Override
		public String toString() {
			return "@" + this.atMillis + "ms " + this.kind
					+ (!this.kind.ofServers() ? " c" + this.client : "");
		}

	}

	@Override
	public String toString() {
		return "Schedule\n  " + this.steps.stream().map(Step::toString).collect(Collectors.joining("\n  "))
				+ "\n  faults: " + this.faults;
	}

}
