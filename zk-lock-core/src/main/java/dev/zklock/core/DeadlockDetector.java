package dev.zklock.core;

import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The deadlock detection of one engine: it tells each acquisition when its wait
 * is to be marked ({@link DeadlockDetectionSettings#after()} after its start) and
 * learns of every key waited for past that mark. For now it counts them; waits
 * shorter than the mark never reach it, so they cost nothing.
 */
final class DeadlockDetector {

	private static final Logger logger = LoggerFactory.getLogger(DeadlockDetector.class);

	static {
		// loaded with the detector, on the thread that builds the engine: the first waits marked at once would
		// otherwise load it together, and a virtual thread that waits for a class being loaded is pinned
		try {
			MethodHandles.lookup().ensureInitialized(Waiting.class);
		}
		catch (IllegalAccessException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private volatile DeadlockDetectionSettings settings = DeadlockDetectionSettings.DEFAULTS;

	private final AtomicLong marks = new AtomicLong();

	void setSettings(DeadlockDetectionSettings settings) {
		this.settings = settings;
	}

	/**
	 * How long after its start a wait is marked.
	 * @return the nanoseconds, or -1 when detection is off
	 */
	long markNanos() {
		DeadlockDetectionSettings current = this.settings;
		return current.enabled() ? LockEngine.cappedNanos(current.after()) : -1;
	}

	/**
	 * A key was waited for past the mark.
	 * @param waiting what is waited for, and what the acquisition took already
	 */
	void waitPassed(Waiting waiting) {
		long count = this.marks.incrementAndGet();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '{}' key '{}' ({}) waited past the deadlock detection mark, node {}; mark {} of this "
					+ "engine", waiting.name(), LockPaths.abbreviate(waiting.key()), waiting.mode(), waiting.node(),
					count);
		}
	}

	/**
	 * One key an acquisition waits for past its mark: what a published wait says of
	 * it.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param path the lock path, whose queue it waits in
	 * @param mode the mode
	 * @param permits the permits of a SEMAPHORE, 1 for the other modes
	 * @param node the node it waits with, {@code null} while its create is unanswered
	 * @param local whether it waits behind this process's tenure
	 * @param owner the thread that will own the holds, {@code null} when asynchronous
	 * @param taken the keys this acquisition took already
	 */
	record Waiting(String name, @Nullable String key, String path, LockMode mode, int permits, @Nullable String node,
			boolean local, @Nullable Thread owner, List<Hold> taken) {

	}

}
