package dev.zklock.faults;

import dev.zklock.LockContext;
import dev.zklock.LockLostException;

/**
 * The guarded work of a worker thread: a non-atomic read, sleep, write of the
 * resource's counter. With a lock, the write carries the holder's fencing token and
 * is made only if {@link LockContext#assertHeld()} passes just before it.
 */
final class CriticalSection {

	/**
	 * How a critical section ended.
	 */
	enum Outcome {

		/** The resource applied the write. */
		WRITTEN,

		/** The resource rejected the read or the write: its fencing token was stale. */
		REJECTED,

		/** {@code assertHeld()} failed, so nothing was written. */
		NOT_HELD,

		/** The thread was interrupted in the section, so nothing was written. */
		INTERRUPTED,

		/** A reader saw the counter unchanged through its section. */
		READ,

		/** A reader saw the counter change during its section: a writer overlapped it. */
		TORN_READ

	}

	private CriticalSection() {
	}

	/**
	 * Run one critical section.
	 * @param resource the resource
	 * @param key the counter's key
	 * @param locked whether the thread holds a lock, so that {@link LockContext#current()}
	 * applies
	 * @param sleepMillis how long to work between the read and the write
	 * @return how it ended
	 */
	static Outcome run(ResourceClient resource, String key, boolean locked, long sleepMillis) {
		long token = locked ? LockContext.current().fencingToken() : 0;
		long value = resource.enter(key, token);
		try {
			if (value < 0) {
				return Outcome.REJECTED;
			}
			if (sleepMillis > 0) {
				Thread.sleep(sleepMillis);
			}
			boolean checked = locked && isHeld();
			if (locked && !checked) {
				return Outcome.NOT_HELD;
			}
			return resource.write(key, value + 1, checked) ? Outcome.WRITTEN : Outcome.REJECTED;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Outcome.INTERRUPTED;
		}
		finally {
			resource.exit(key);
		}
	}

	/**
	 * Run one read section under a READ lock: read the counter, work, and read it
	 * again while {@code assertHeld()} passes; a write in between is a torn read.
	 * @param resource the resource
	 * @param key the counter's key
	 * @param sleepMillis how long to work between the reads
	 * @return how it ended
	 */
	static Outcome read(ResourceClient resource, String key, long sleepMillis) {
		long before = resource.peek(key);
		try {
			if (sleepMillis > 0) {
				Thread.sleep(sleepMillis);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Outcome.INTERRUPTED;
		}
		long after = resource.peek(key);
		if (!isHeld()) {
			return Outcome.NOT_HELD;
		}
		return (after == before) ? Outcome.READ : Outcome.TORN_READ;
	}

	/**
	 * Whether {@link LockContext#assertHeld()} passes for the current lock.
	 * @return whether it passed
	 */
	static boolean isHeld() {
		try {
			LockContext.current().assertHeld();
			return true;
		}
		catch (LockLostException ex) {
			return false;
		}
	}

}
