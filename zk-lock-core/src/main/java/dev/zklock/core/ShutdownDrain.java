package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockLossReason;
import dev.zklock.LockState;

/**
 * The end of an engine in an application that stops, in two steps. First no new
 * lock is taken and every wait under way ends, its node deleted. Then the holds
 * in flight get a bounded time to be released by the work they guard; whatever is
 * still held after it is given up: lost with
 * {@link dev.zklock.LockLossReason#SHUTDOWN}, announced to the loss listeners, and
 * its node deleted, in that order, so that a lock never passes to another process
 * unannounced and the next waiter need not wait for this session to end. A lock
 * kept for its {@code minHold} after its work finished is neither waited for nor
 * given up: it ends at its time, or with the session when the client closes.
 */
final class ShutdownDrain {

	private static final Logger logger = LoggerFactory.getLogger(ShutdownDrain.class);

	// how long a node deletion of a given-up hold is awaited before the client may close
	private static final Duration DELETE_WAIT = Duration.ofSeconds(5);

	private static final Set<LockState> LOST = EnumSet.of(LockState.LOST);

	private final LockRegistry registry;

	private final HoldRelease releases;

	// ends the waits under way
	private final Runnable endWaits;

	// a manager and its asynchronous view drain one engine: the kept locks are logged once
	private final AtomicBoolean keptLogged = new AtomicBoolean();

	private volatile boolean shuttingDown;

	ShutdownDrain(LockRegistry registry, HoldRelease releases, Runnable endWaits) {
		this.registry = registry;
		this.releases = releases;
		this.endWaits = endWaits;
	}

	/**
	 * Take no new locks and end every wait under way; held locks stay held.
	 */
	void begin() {
		this.shuttingDown = true;
		this.endWaits.run();
	}

	/**
	 * Whether the engine takes no new locks, the application shutting down.
	 */
	boolean isShuttingDown() {
		return this.shuttingDown;
	}

	/**
	 * Refuse a new acquisition once the application shuts down.
	 */
	void checkTakingLocks(String name) {
		if (this.shuttingDown) {
			throw new LockException("Cannot acquire lock '" + name + "': the application is shutting down, so "
					+ "zk-lock takes no new locks and ends the waits under way. Run the call again on an instance "
					+ "that is not stopping");
		}
	}

	/**
	 * Wait for the holds in flight to be released, then give up those that remain.
	 * @param timeout the longest wait
	 * @return the number of holds given up
	 */
	int drain(Duration timeout) {
		begin();
		LockRegistry registry = this.registry;
		boolean settled = await(registry.whenSettled(), timeout);
		logKept(registry);
		if (settled) {
			return 0;
		}
		List<CompletableFuture<Void>> deletions = new ArrayList<>();
		int givenUp = 0;
		for (LockRegistry.Entry entry : registry.entries(LockRegistry.Entry.OWNED)) {
			if (entry.isLingering()) {
				// its work is done: kept for its minHold, it ends at its time or with the session
				continue;
			}
			deletions.add(this.releases.takeAway(entry, LockLossReason.SHUTDOWN));
			givenUp++;
		}
		for (LockRegistry.Entry entry : registry.entries(LOST)) {
			// lost before, its node gone with the session: its late release need not reach ZooKeeper
			entry.abandon();
		}
		if (!await(CompletableFuture.allOf(deletions.toArray(new CompletableFuture<?>[0])), DELETE_WAIT)) {
			logger.warn("{} lock node(s) given up at shutdown were not confirmed deleted within {}; they go with the "
					+ "ZooKeeper session", deletions.stream().filter((deletion) -> !deletion.isDone()).count(),
					DELETE_WAIT);
		}
		return givenUp;
	}

	private void logKept(LockRegistry registry) {
		long kept = registry.entries(LockRegistry.Entry.OWNED).stream().filter(LockRegistry.Entry::isLingering).count();
		if (kept > 0 && this.keptLogged.compareAndSet(false, true)) {
			logger.info("{} lock(s) whose work has finished stay held for their minHold until it passes or the "
					+ "ZooKeeper session closes, whichever comes first", kept);
		}
	}

	// Whether the future completed in time; an interrupt ends the wait and is kept
	private static boolean await(CompletableFuture<?> future, Duration timeout) {
		try {
			future.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return future.isDone();
		}
		catch (ExecutionException ex) {
			logger.debug("A lock node given up at shutdown could not be deleted", ex);
			return true;
		}
		catch (TimeoutException ex) {
			return false;
		}
	}

}
