package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockContext;
import dev.zklock.LockLostException;

/**
 * Asks a lock whether it is still held, answering with the loss instead of throwing
 * it: callers that release the lock first decide afterwards what a loss means.
 */
public final class HeldCheck {

	private HeldCheck() {
	}

	/**
	 * Check that the lock is still held.
	 * @param lock the lock
	 * @return the exception {@link LockContext#assertHeld()} throws, or {@code null}
	 * when the lock is held
	 */
	public static @Nullable LockLostException lossOf(LockContext lock) {
		try {
			lock.assertHeld();
			return null;
		}
		catch (LockLostException ex) {
			return ex;
		}
	}

}
