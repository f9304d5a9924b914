package dev.zklock.core;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a hold from trusting itself after this process went silent: with a
 * {@link PauseDetector}, a held lock counts as {@link LockState#IN_DOUBT} while the
 * process has been silent for longer than
 * {@link PauseDetector#safeSilence(java.time.Duration) a safe part} of the
 * negotiated session timeout, or once a pause ended since ZooKeeper last confirmed
 * the hold. It is held again after one fresh round trip ({@code sync}, then
 * {@code exists} on our node, sent from the loss handler's thread) shows the node
 * of our session still there. Checking costs no ZooKeeper call, on any thread,
 * while nothing was silent, and never one on the caller's thread.
 */
final class PauseGuard {

	/**
	 * No pause detection: holds trust the connection alone.
	 */
	static final PauseGuard NONE = new PauseGuard(null, null, null);

	private static final Logger logger = LoggerFactory.getLogger(PauseGuard.class);

	private final PauseDetector detector;

	private final CuratorFramework client;

	private final ConnectionLossHandler lossHandler;

	PauseGuard(PauseDetector detector, CuratorFramework client, ConnectionLossHandler lossHandler) {
		this.detector = detector;
		this.client = client;
		this.lossHandler = lossHandler;
	}

	/**
	 * The pause epoch a hold granted or confirmed now starts from.
	 */
	long epoch() {
		return (this.detector != null) ? this.detector.pauseEpoch() : 0;
	}

	/**
	 * Whether a held entry is in doubt because of a pause; starts confirming it when
	 * it is.
	 * @param entry a held entry
	 * @return whether it must not count as held now
	 */
	boolean inDoubt(LockRegistry.Entry entry) {
		if (this.detector == null) {
			return false;
		}
		// the last tick first: the ticker counts a pause before it records the tick that ends it
		boolean suspect = this.detector.silentLongerThan(safeSilenceNanos())
				|| this.detector.pauseEpoch() != entry.confirmedEpoch();
		if (suspect) {
			confirm(entry);
		}
		return suspect;
	}

	// A quarter of the negotiated timeout (PauseDetector.safeSilence says why); no bound before a session
	private long safeSilenceNanos() {
		int timeout = this.client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
		return (timeout > 0) ? PauseDetector.safeSilence(Duration.ofMillis(timeout)).toNanos() : Long.MAX_VALUE;
	}

	// One round trip at a time per entry, started on the loss handler's thread so that the check stays cheap
	private void confirm(LockRegistry.Entry entry) {
		if (entry.startConfirming() && !this.lossHandler.execute(() -> sendConfirmation(entry))) {
			entry.stopConfirming();
		}
	}

	// sync, so that the read is not stale, then exists on our node
	private void sendConfirmation(LockRegistry.Entry entry) {
		long epoch = this.detector.pauseEpoch();
		LockNode node = entry.node();
		try {
			this.client.sync()
				.inBackground((c, synced) -> this.client.checkExists()
					.inBackground((c2, event) -> confirmed(entry, node, epoch, event.getResultCode(), event.getStat()))
					.forPath(node.path()))
				.forPath(node.path());
		}
		catch (Exception ex) {
			entry.stopConfirming();
			logger.debug("Could not confirm lock node {} after a pause", node.path(), ex);
		}
	}

	private void confirmed(LockRegistry.Entry entry, LockNode node, long epoch, int code, Stat stat) {
		try {
			if (code == KeeperException.Code.OK.intValue() && stat.getCzxid() == node.czxid()
					&& stat.getEphemeralOwner() == node.session()) {
				entry.confirmedEpoch(epoch);
				logger.info("ZooKeeper confirmed lock '{}' key '{}' after this process was silent; it is held again",
						entry.name(), KeyEncoder.abbreviate(entry.key()));
			}
			else if (code == KeeperException.Code.NONODE.intValue() || code == KeeperException.Code.OK.intValue()) {
				this.lossHandler.nodeGone(entry);
			}
		}
		finally {
			entry.stopConfirming();
		}
	}

}
