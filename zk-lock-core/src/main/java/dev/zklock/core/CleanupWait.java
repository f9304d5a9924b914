package dev.zklock.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long an {@link Acquisition} that gave up waits for ZooKeeper to confirm its
 * nodes deleted before it answers its caller: until they are, but at most
 * {@link #GRACE_NANOS}, and not at all while ZooKeeper is unreachable or when the
 * caller must not wait. So a deadline holds whatever ZooKeeper does. A deletion
 * not confirmed by then goes on in the background: the abandoned attempt deletes a
 * node whose create is answered later, and Curator's guaranteed delete retries.
 */
final class CleanupWait {

	/**
	 * The longest wait for the nodes of an acquisition that gave up, while ZooKeeper
	 * is reachable.
	 */
	static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private static final Logger logger = LoggerFactory.getLogger(CleanupWait.class);

	private CleanupWait() {
	}

	/**
	 * Run {@code then} once every cleanup completed, or once the wait ends.
	 * @param reachability whether ZooKeeper answers: while it does not, nobody waits
	 * @param timer ends the wait
	 * @param name the lock name, for the log
	 * @param cleanups complete once their nodes are confirmed deleted
	 * @param wait whether the caller may wait for them at all
	 * @param then answers the caller; runs once
	 */
	static void then(ZooKeeperReachability reachability, EngineTimer timer, String name, List<CompletableFuture<?>> cleanups, boolean wait,
			Runnable then) {
		AtomicBoolean ran = new AtomicBoolean();
		Runnable once = () -> {
			if (ran.compareAndSet(false, true)) {
				then.run();
			}
		};
		CompletableFuture<Void> all = CompletableFuture.allOf(cleanups.toArray(new CompletableFuture<?>[0]));
		all.whenComplete((ignored, ex) -> {
			if (ex != null) {
				logger.debug("A node of lock '{}' could not be confirmed deleted; Curator keeps deleting it", name, ex);
			}
			once.run();
		});
		if (all.isDone()) {
			return;
		}
		if (!wait || reachability.isUnreachable() || timer.schedule(once, GRACE_NANOS, TimeUnit.NANOSECONDS) == null) {
			logger.debug("Lock '{}': answering without waiting for ZooKeeper to confirm its nodes deleted; they are "
					+ "deleted in the background", name);
			once.run();
		}
	}

}
