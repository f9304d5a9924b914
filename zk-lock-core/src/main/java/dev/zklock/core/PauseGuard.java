package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockState;
import dev.zklock.core.LockRegistry.Hold;
import dev.zklock.core.Nodes.LockNode;

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
 * <p>
 * A check answers from memory and never waits for another thread: it only queues an
 * entry in doubt (a lock-free queue), and the detector's ticker hands the queue to the
 * loss handler's thread on its next tick. Handing it over from the checking thread
 * would take the executor's locks and wake another thread at the moment a resumed
 * process has the most runnable threads. The lambdas are linked here, when the guard
 * is created, not by the first check after a pause.
 */
final class PauseGuard {

	/**
	 * No pause detection: holds trust the connection alone.
	 */
	static final PauseGuard NONE = new PauseGuard(null, null, null);

	private static final Logger logger = LoggerFactory.getLogger(PauseGuard.class);

	private final @Nullable PauseDetector detector;

	private final @Nullable CuratorFramework client;

	private final @Nullable ConnectionLossHandler lossHandler;

	// entries in doubt whose confirmation is claimed but not sent yet
	private final Queue<LockRegistry.Entry> pending = new ConcurrentLinkedQueue<>();

	private final Runnable dispatcher = this::dispatch;

	private final Runnable sender = this::sendPending;

	PauseGuard(@Nullable PauseDetector detector, @Nullable CuratorFramework client,
			@Nullable ConnectionLossHandler lossHandler) {
		this.detector = detector;
		this.client = client;
		this.lossHandler = lossHandler;
		if (detector != null) {
			detector.addTickListener(this.dispatcher);
		}
	}

	/**
	 * Stop handing confirmations on; for a lock engine that closes or changes its
	 * detector.
	 */
	void close() {
		if (this.detector != null) {
			this.detector.removeTickListener(this.dispatcher);
		}
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
		boolean suspect = isSuspect(entry);
		if (suspect) {
			confirm(entry);
		}
		return suspect;
	}

	// The caller's own read of the clock first: a silence past the pause threshold is a pause the ticker has not
	// counted yet, up to a tick after it ended, while ZooKeeper's answers held back by it may already be in
	private boolean isSuspect(LockRegistry.Entry entry) {
		PauseDetector pauses = detector();
		long limit = Math.min(safeSilenceNanos(), pauses.pauseThresholdNanos());
		return pauses.silentLongerThan(limit) || pauses.pauseEpoch() != entry.confirmedEpoch();
	}

	/**
	 * Confirm keys just granted, before their holder gets them, when a pause was
	 * counted since their wait began (or the process is silent now): the answer that
	 * granted them may predate the pause. A grant made after the pause is then held
	 * at its grant; one made before or during it is confirmed, or found gone and lost
	 * (its acquisition starts over), as a hold in doubt would be.
	 * @param holds the keys granted, not handed to their holder yet
	 * @return whether a round trip was sent; the future completes once answered
	 */
	@Nullable CompletableFuture<Void> confirmGrant(List<Hold> holds) {
		if (this.detector == null) {
			return null;
		}
		List<CompletableFuture<Void>> confirmations = new ArrayList<>();
		for (Hold hold : holds) {
			LockRegistry.Entry entry = hold.entry();
			if (isSuspect(entry) && entry.startConfirming()) {
				confirmations.add(sendConfirmation(entry));
			}
		}
		return confirmations.isEmpty() ? null
				: CompletableFuture.allOf(confirmations.toArray(new CompletableFuture<?>[0]));
	}

	// A quarter of the negotiated timeout (PauseDetector.safeSilence says why); no bound before a session.
	// In plain arithmetic: Duration.dividedBy allocates BigDecimals, 368 bytes and ~70 ns per check
	private long safeSilenceNanos() {
		int timeout = client().getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
		return (timeout > 0) ? PauseDetector.safeSilenceNanos(timeout) : Long.MAX_VALUE;
	}

	// One round trip at a time per entry; the check only queues it (see the class comment)
	private void confirm(LockRegistry.Entry entry) {
		if (entry.startConfirming()) {
			this.pending.offer(entry);
		}
	}

	// on the ticker's thread, after each tick
	private void dispatch() {
		if (this.pending.isEmpty() || lossHandler().execute(this.sender)) {
			return;
		}
		// the lock manager is closed: nothing will confirm them
		for (LockRegistry.Entry entry = this.pending.poll(); entry != null; entry = this.pending.poll()) {
			entry.stopConfirming();
		}
	}

	// on the loss handler's thread
	private void sendPending() {
		for (LockRegistry.Entry entry = this.pending.poll(); entry != null; entry = this.pending.poll()) {
			sendConfirmation(entry);
		}
	}

	// sync, so that the read is not stale, then exists on our node; completes once answered or failed
	private CompletableFuture<Void> sendConfirmation(LockRegistry.Entry entry) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		long epoch = detector().pauseEpoch();
		LockNode node = entry.node();
		CuratorFramework client = client();
		try {
			client.sync().inBackground((c, synced) -> {
				try {
					client.checkExists().inBackground((c2, event) -> {
						confirmed(entry, node, epoch, event.getResultCode(), event.getStat());
						done.complete(null);
					}).forPath(node.path());
				}
				catch (Exception ex) {
					notConfirmed(entry, node, ex, done);
				}
			}).forPath(node.path());
		}
		catch (Exception ex) {
			notConfirmed(entry, node, ex, done);
		}
		return done;
	}

	private static void notConfirmed(LockRegistry.Entry entry, LockNode node, Exception ex,
			CompletableFuture<Void> done) {
		entry.stopConfirming();
		logger.debug("Could not confirm lock '{}' key '{}' node {} after a pause", entry.name(),
				LockPaths.abbreviate(entry.key()), node.path(), ex);
		done.complete(null);
	}

	private void confirmed(LockRegistry.Entry entry, LockNode node, long epoch, int code, @Nullable Stat stat) {
		try {
			if (code == KeeperException.Code.OK.intValue() && stat != null && stat.getCzxid() == node.czxid()
					&& stat.getEphemeralOwner() == node.session()) {
				entry.confirmedEpoch(epoch);
				logger.info("ZooKeeper confirmed lock '{}' key '{}' after this process was silent; it is held again",
						entry.name(), LockPaths.abbreviate(entry.key()));
			}
			else if (code == KeeperException.Code.NONODE.intValue() || code == KeeperException.Code.OK.intValue()) {
				lossHandler().nodeGone(entry);
			}
		}
		finally {
			entry.stopConfirming();
		}
	}

	// The parts below are used only with a detector, never by NONE
	private PauseDetector detector() {
		return Objects.requireNonNull(this.detector, "no pause detector");
	}

	private CuratorFramework client() {
		return Objects.requireNonNull(this.client, "no pause detector");
	}

	private ConnectionLossHandler lossHandler() {
		return Objects.requireNonNull(this.lossHandler, "no pause detector");
	}

}
