package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;
import dev.zklock.LockState;
import dev.zklock.core.LockRegistry.Hold;
import dev.zklock.core.Nodes.LockNode;

/**
 * Lets a holder learn at once, while connected, that its node was deleted by
 * someone else (a revocation): a watch on the node, whose deletion makes the hold
 * {@code LOST} with reason {@code REVOKED}. A hold is watched only once it has
 * lasted {@value #ARM_DELAY_MILLIS} ms, so that a short hold, the usual one, costs
 * no ZooKeeper operation beyond create, read and delete; a revocation before that
 * is seen when arming finds the node gone. Nor does a short hold schedule a timer
 * of its own: it joins a queue of holds in the order they fall due, and one sweep, timed by
 * {@link System#nanoTime()} for the first hold due (and at least
 * {@value #SWEEP_MILLIS} ms after the last sweep, so that holds due close together
 * share one), arms the watches of the holds due and looks at nothing else. With
 * nothing queued, no sweep is scheduled. So an uncontended cycle pays a queue
 * insertion, and a sweep's work follows the holds acquired, not the holds held.
 * Holds handed over in the order of their grants, nearly all of them, queue
 * first in, first out, at a constant cost; the others (handed over late, or
 * looked at again) in a priority queue: its sift, paid by every hold, took a
 * tenth of a hot key's CPU (#40). {@link DueQueue} keeps the two.
 * Our own release also fires the watch, but by then the entry is releasing, which
 * the engine ignores.
 */
final class RevocationWatch {

	/**
	 * How long a hold lasts before its node is watched: short enough that a revoked
	 * holder learns it within about this plus a sweep and a round trip.
	 */
	static final long ARM_DELAY_MILLIS = 50;

	/** The shortest rest between two sweeps. */
	static final long SWEEP_MILLIS = 25;

	/** How soon a hold in doubt, or whose watch could not be set, is looked at again. */
	static final long RETRY_MILLIS = 250;

	private static final long ARM_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(ARM_DELAY_MILLIS);

	private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS);

	private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);

	private static final Logger logger = LoggerFactory.getLogger(RevocationWatch.class);

	private final CuratorFramework client;

	private final LockRegistry registry;

	private final EngineTimer timer;

	private final ConnectionLossHandler lossHandler;

	private final HoldRelease releases;

	private final DueQueue<LockRegistry.Entry> dueQueue = new DueQueue<>();

	private final AtomicBoolean sweepPending = new AtomicBoolean();

	// written by the one timer thread only
	private volatile long lastSweepNanos = System.nanoTime() - SWEEP_NANOS;

	// for tests: sweeps run, and holds they looked at
	private final AtomicLong sweeps = new AtomicLong();

	private final AtomicLong examined = new AtomicLong();

	RevocationWatch(CuratorFramework client, LockRegistry registry, EngineTimer timer,
			ConnectionLossHandler lossHandler, HoldRelease releases) {
		this.client = client;
		this.registry = registry;
		this.timer = timer;
		this.lossHandler = lossHandler;
		this.releases = releases;
	}

	/**
	 * Watch the nodes of holds just handed to their holder, once they have lasted
	 * {@value #ARM_DELAY_MILLIS} ms.
	 * @param holds the holds
	 */
	void arm(List<Hold> holds) {
		for (Hold hold : holds) {
			LockRegistry.Entry entry = hold.entry();
			entry.wantWatch();
			this.dueQueue.offer(entry, entry.sinceNanos() + ARM_DELAY_NANOS);
		}
		scheduleSweep();
	}

	// Offer first, then look at the flag; the sweep clears the flag, then looks at the queues: no hold is missed
	private void scheduleSweep() {
		Due<LockRegistry.Entry> first = this.dueQueue.first();
		if (first == null || this.sweepPending.get() || !this.sweepPending.compareAndSet(false, true)) {
			return;
		}
		long now = System.nanoTime();
		long delay = Math.max(first.nanos() - now, this.lastSweepNanos + SWEEP_NANOS - now);
		if (this.timer.schedule(this::sweep, Math.max(0, delay), TimeUnit.NANOSECONDS) == null) {
			// closed
			this.sweepPending.set(false);
		}
	}

	// On the timer thread: arm the watches due, and come again when the next one is
	private void sweep() {
		this.sweeps.incrementAndGet();
		long now = System.nanoTime();
		this.lastSweepNanos = now;
		this.examined.addAndGet(this.dueQueue.takeDue(now, (entry) -> due(entry, now)));
		this.sweepPending.set(false);
		scheduleSweep();
	}

	private void due(LockRegistry.Entry entry, long now) {
		if (!entry.wantsWatch()) {
			// watched already
			return;
		}
		LockState state = entry.state();
		if (state == LockState.HELD) {
			entry.startWatching();
			watch(entry);
		}
		else if (state == LockState.IN_DOUBT && !entry.isAbandoned()) {
			// may be held again: looked at again rather than forgotten
			this.dueQueue.offerOutOfOrder(entry, now + RETRY_NANOS);
		}
		// else released or lost: nothing to watch
	}

	long sweeps() {
		return this.sweeps.get();
	}

	long examined() {
		return this.examined.get();
	}

	// getData rather than exists: on a node that is gone already it leaves no watch behind
	private void watch(LockRegistry.Entry entry) {
		if (!LockRegistry.Entry.OWNED.contains(entry.state()) || entry.isAbandoned()) {
			return;
		}
		LockNode node = entry.node();
		try {
			this.client
				.getData()
				.usingWatcher((Watcher) (event) -> watched(entry, event))
				.inBackground((client, event) -> armed(entry, node, event))
				.forPath(node.path());
		}
		catch (Exception ex) {
			if (this.client.getState() != CuratorFrameworkState.STARTED) {
				// closed before the watch was armed: no event will tell, so the hold is lost now
				gone(entry);
				return;
			}
			logger.debug("Could not watch lock '{}' key '{}' node {}; a revocation is seen when the node is next "
					+ "checked", entry.name(), LockPaths.abbreviate(entry.key()), node.path(), ex);
		}
	}

	private void armed(LockRegistry.Entry entry, LockNode node, CuratorEvent event) {
		Stat stat = event.getStat();
		if (event.getResultCode() == KeeperException.Code.NONODE.intValue()
				|| (Nodes.isOk(event) && stat != null && stat.getCzxid() != node.czxid())) {
			gone(entry);
		}
		else if (!Nodes.isOk(event)) {
			// the connection's failure, after Curator's retries: armed again a little later
			logger.debug("Could not watch lock '{}' key '{}' node {} ({}); trying again in {} ms", entry.name(),
					LockPaths.abbreviate(entry.key()), node.path(), KeeperException.Code.get(event.getResultCode()),
					RETRY_MILLIS);
			entry.stopWatching();
			this.dueQueue.offerOutOfOrder(entry, System.nanoTime() + RETRY_NANOS);
			scheduleSweep();
		}
	}

	private void watched(LockRegistry.Entry entry, WatchedEvent event) {
		if (event.getType() == EventType.NodeDeleted) {
			gone(entry);
		}
		else if (event.getType() == EventType.NodeDataChanged) {
			// a watch fires once: watch on
			watch(entry);
		}
	}

	// on the loss handler's thread, in line with the connection events
	private void gone(LockRegistry.Entry entry) {
		if (!this.lossHandler.execute(() -> revoked(entry))) {
			// the manager closed, and its connection events with it: here, or the hold would stay held on no node
			revoked(entry);
		}
	}

	/**
	 * A held node was deleted by someone else: revoked while connected, or, for a
	 * hold in doubt, found gone after the connection came back. A node found gone
	 * once the client is on a later session went with its own session; the
	 * connection events say so ({@link ConnectionLossHandler#nodeGone}). Runs on the loss
	 * handler's thread, in line with the connection events. Our own release fires
	 * the watch too, but then the entry is no longer owned and nothing happens; a
	 * release at the same moment as a revocation either finds the entry abandoned
	 * (quiet) or leaves it releasing (nothing announced).
	 */
	void revoked(LockRegistry.Entry entry) {
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			// our own client closed: its session deleted the node, no one else did
			this.lossHandler.clientClosed();
		}
		else if (entry.state() == LockState.IN_DOUBT
				|| !Nodes.isCurrentSession(this.client, entry.node().session())) {
			// a watch armed again after the session ended finds the node gone with it: no one revoked it
			this.lossHandler.nodeGone(entry);
		}
		else if (!entry.isAbandoned()) {
			this.releases.takeAway(entry, LockLossReason.REVOKED);
		}
	}

	/**
	 * The holds waiting for their watch, by when they fall due on
	 * {@link System#nanoTime()}: those offered in the order they fall due, nearly all
	 * of them, first in, first out at a constant cost; the rest (handed over late, or
	 * looked at again) by priority, so that each is still taken at its time. Any
	 * thread offers; one thread, the timer's, takes.
	 *
	 * @param <T> what falls due
	 */
	static final class DueQueue<T> {

		private final Queue<Due<T>> inOrder = new ConcurrentLinkedQueue<>();

		private final Queue<Due<T>> outOfOrder;

		// when the last item offered in order falls due; two offered at the same moment may race, and one then waits
		// in the queue behind the other, due a little later
		private volatile long lastInOrderNanos = Long.MIN_VALUE;

		DueQueue() {
			this(new PriorityBlockingQueue<>(16, (one, other) -> Long.signum(one.nanos() - other.nanos())));
		}

		/**
		 * A queue whose out-of-order part is the one given, for tests that choose how
		 * an offer interleaves with a take.
		 * @param outOfOrder the items first due first, safe for concurrent use
		 */
		DueQueue(Queue<Due<T>> outOfOrder) {
			this.outOfOrder = outOfOrder;
		}

		/**
		 * Queue an item: first in, first out while it falls due no sooner than the one
		 * offered before it, else by priority.
		 * @param item the item
		 * @param nanos when it falls due
		 */
		void offer(T item, long nanos) {
			long last = this.lastInOrderNanos;
			if (last == Long.MIN_VALUE || nanos - last >= 0) {
				this.lastInOrderNanos = nanos;
				this.inOrder.offer(new Due<>(item, nanos));
			}
			else {
				// due before one offered earlier: behind it in the FIFO, it would wait for that one's time
				this.outOfOrder.offer(new Due<>(item, nanos));
			}
		}

		/**
		 * Queue an item known to fall due out of order, as one looked at again does.
		 * @param item the item
		 * @param nanos when it falls due
		 */
		void offerOutOfOrder(T item, long nanos) {
			this.outOfOrder.offer(new Due<>(item, nanos));
		}

		/**
		 * The item due first, or {@code null} when none is queued.
		 */
		@Nullable Due<T> first() {
			Due<T> one = this.inOrder.peek();
			Due<T> other = this.outOfOrder.peek();
			if (one == null || other == null) {
				return (one != null) ? one : other;
			}
			return (one.nanos() - other.nanos() <= 0) ? one : other;
		}

		/**
		 * Take every item due by {@code now}; by the one consumer.
		 * @param now {@link System#nanoTime()}
		 * @param due receives each item taken
		 * @return how many were taken
		 */
		int takeDue(long now, Consumer<T> due) {
			return takeDue(this.inOrder, now, due) + takeDue(this.outOfOrder, now, due);
		}

		// What a poll takes after a peek at a due item is that item, or one due sooner offered in between: hand on
		// the one polled, or that one is dropped and the one peeked at comes twice
		private static <T> int takeDue(Queue<Due<T>> queue, long now, Consumer<T> due) {
			int taken = 0;
			for (Due<T> first = queue.peek(); first != null && first.nanos() - now <= 0; first = queue.peek()) {
				Due<T> polled = queue.poll();
				taken++;
				due.accept(polled.item());
			}
			return taken;
		}

	}

	/**
	 * An item and when it falls due, by {@link System#nanoTime()}.
	 */
	record Due<T>(T item, long nanos) {

	}

}
