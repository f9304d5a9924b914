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
		INTERRUPTED

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
