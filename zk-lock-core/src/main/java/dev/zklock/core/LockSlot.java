package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * One lock path as seen by one thread: how many times the thread entered it per
 * mode, and the engine's {@link Hold} of each mode, taken at the outermost entry
 * and released at the outermost exit. Re-entrancy is this bookkeeping alone; the
 * engine knows nothing of it. Only the owning thread touches a slot.
 */
final class LockSlot {

	private static final int MODES = LockMode.values().length;

	private final int[] counts = new int[MODES];

	private final @Nullable Hold[] holds = new Hold[MODES];

	private int entered;

	int count(LockMode mode) {
		return this.counts[mode.ordinal()];
	}

	@Nullable Hold hold(LockMode mode) {
		return this.holds[mode.ordinal()];
	}

	/**
	 * Keep the hold of an outermost acquisition of a mode.
	 */
	void hold(LockMode mode, Hold hold) {
		this.holds[mode.ordinal()] = hold;
	}

	void enter(LockMode mode) {
		this.counts[mode.ordinal()]++;
		this.entered++;
	}

	/**
	 * Leave once.
	 * @param mode the mode
	 * @return the hold to release when that was the outermost exit of the mode, else
	 * {@code null}
	 */
	@Nullable Hold exit(LockMode mode) {
		int left = count(mode) - 1;
		if (left < 0) {
			return null;
		}
		this.counts[mode.ordinal()] = left;
		this.entered--;
		if (left > 0) {
			return null;
		}
		Hold hold = this.holds[mode.ordinal()];
		this.holds[mode.ordinal()] = null;
		return hold;
	}

	boolean isEmpty() {
		return this.entered == 0;
	}

	/**
	 * Identifies a slot in a thread's map: the path and the recipe family, since
	 * MUTEX, READ/WRITE and SEMAPHORE on the same path are independent locks.
	 *
	 * @param path the lock path
	 * @param family the recipe family
	 */
	record Key(String path, Family family) {

		static Key of(String path, LockMode mode) {
			return new Key(path, Family.of(mode));
		}

		/**
		 * The Curator recipe behind a mode.
		 */
		enum Family {

			MUTEX, READ_WRITE, SEMAPHORE;

			static Family of(LockMode mode) {
				return switch (mode) {
					case MUTEX -> MUTEX;
					case READ, WRITE -> READ_WRITE;
					case SEMAPHORE -> SEMAPHORE;
				};
			}

		}

	}

}
