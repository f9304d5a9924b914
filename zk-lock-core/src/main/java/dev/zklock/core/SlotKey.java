package dev.zklock.core;

import dev.zklock.annotation.LockMode;

/**
 * Identifies a slot in a thread's map: the path and the recipe family, since
 * MUTEX, READ/WRITE and SEMAPHORE on the same path are independent locks.
 *
 * @param path the lock path
 * @param family the recipe family
 */
record SlotKey(String path, Family family) {

	static SlotKey of(String path, LockMode mode) {
		return new SlotKey(path, Family.of(mode));
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
