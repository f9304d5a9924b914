package dev.zklock.core;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;

/**
 * Lets a holder learn at once, while connected, that its node was deleted by
 * someone else (a revocation): a watch on the node, whose deletion makes the hold
 * {@code LOST} with reason {@code REVOKED}. A hold is watched only once it has
 * lasted {@value #ARM_DELAY_MILLIS} ms, so that a short hold, the usual one, costs
 * no ZooKeeper operation beyond create, read and delete; a revocation before that
 * is seen when arming finds the node gone. Nor does a short hold schedule a timer
 * of its own: one sweep, every {@value #SWEEP_MILLIS} ms while holds wait for
 * their watch, arms the watches due, so an uncontended cycle pays a volatile write
 * and a read. Our own release also fires the watch, but by then the entry is
 * releasing, which the engine ignores.
 */
final class RevocationWatch {

	/**
	 * How long a hold lasts before its node is watched: short enough that a revoked
	 * holder learns it within about this plus a sweep and a round trip.
	 */
	static final long ARM_DELAY_MILLIS = 50;

	static final long SWEEP_MILLIS = 25;

	private static final Set<LockState> HELD = EnumSet.of(LockState.HELD);

	private static final Logger logger = LoggerFactory.getLogger(RevocationWatch.class);

	private final LockEngine engine;

	private final AtomicBoolean sweepPending = new AtomicBoolean();

	RevocationWatch(LockEngine engine) {
		this.engine = engine;
	}

	/**
	 * Watch the nodes of holds just handed to their holder, once they have lasted
	 * {@value #ARM_DELAY_MILLIS} ms.
	 * @param holds the holds
	 */
	void arm(List<Hold> holds) {
		for (Hold hold : holds) {
			hold.entry().wantWatch();
		}
		scheduleSweep();
	}

	private void scheduleSweep() {
		if (!this.sweepPending.get() && this.sweepPending.compareAndSet(false, true)
				&& this.engine.schedule(this::sweep, SWEEP_MILLIS, TimeUnit.MILLISECONDS) == null) {
			// closed
			this.sweepPending.set(false);
		}
	}

	// On the timer thread: arm the watches due, and come again while some are not due yet
	private void sweep() {
		this.sweepPending.set(false);
		long now = System.currentTimeMillis();
		boolean notDueYet = false;
		for (RegistryEntry entry : this.engine.registry().entries(HELD)) {
			if (!entry.wantsWatch()) {
				continue;
			}
			if (now - entry.sinceMillis() < ARM_DELAY_MILLIS) {
				notDueYet = true;
			}
			else {
				entry.startWatching();
				watch(entry);
			}
		}
		if (notDueYet) {
			scheduleSweep();
		}
	}

	// getData rather than exists: on a node that is gone already it leaves no watch behind
	private void watch(RegistryEntry entry) {
		if (!RegistryEntry.OWNED.contains(entry.state()) || entry.isAbandoned()) {
			return;
		}
		LockNode node = entry.node();
		try {
			this.engine.client()
				.getData()
				.usingWatcher((Watcher) (event) -> watched(entry, event))
				.inBackground((client, event) -> armed(entry, node, event))
				.forPath(node.path());
		}
		catch (Exception ex) {
			logger.debug("Could not watch lock node {}; a revocation is seen when the node is next checked",
					node.path(), ex);
		}
	}

	private void armed(RegistryEntry entry, LockNode node, CuratorEvent event) {
		Stat stat = event.getStat();
		if (event.getResultCode() == KeeperException.Code.NONODE.intValue()
				|| (Nodes.isOk(event) && stat != null && stat.getCzxid() != node.czxid())) {
			gone(entry);
		}
		else if (!Nodes.isOk(event)) {
			// the connection's failure, after Curator's retries: a later sweep arms it again
			entry.stopWatching();
			scheduleSweep();
		}
	}

	private void watched(RegistryEntry entry, WatchedEvent event) {
		if (event.getType() == EventType.NodeDeleted) {
			gone(entry);
		}
		else if (event.getType() == EventType.NodeDataChanged) {
			// a watch fires once: watch on
			watch(entry);
		}
	}

	// on the loss handler's thread, in line with the connection events
	private void gone(RegistryEntry entry) {
		this.engine.lossHandler().execute(() -> revoked(entry));
	}

	/**
	 * A held node was deleted by someone else: revoked while connected, or, for a
	 * hold in doubt, found gone after the connection came back. Runs on the loss
	 * handler's thread, in line with the connection events. Our own release fires
	 * the watch too, but then the entry is no longer owned and nothing happens; a
	 * release at the same moment as a revocation either finds the entry abandoned
	 * (quiet) or leaves it releasing (nothing announced).
	 */
	void revoked(RegistryEntry entry) {
		if (entry.state() == LockState.IN_DOUBT) {
			this.engine.lossHandler().nodeGone(entry);
		}
		else if (!entry.isAbandoned()) {
			this.engine.releases().takeAway(entry, LockLossReason.REVOKED);
		}
	}

}
