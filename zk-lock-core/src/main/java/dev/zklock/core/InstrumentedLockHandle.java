package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockHandle;
import dev.zklock.annotation.LockMode;

/**
 * A held lock handed out by an {@link InstrumentedLockManager}: it delegates every
 * {@link LockHandle} method and reports the release once. A new {@link LockHandle}
 * method must be delegated here too.
 */
final class InstrumentedLockHandle implements LockHandle {

	private final LockHandle delegate;

	private final Instrumentations.Acquisition acquisition;

	InstrumentedLockHandle(LockHandle delegate, Instrumentations.Acquisition acquisition) {
		this.delegate = delegate;
		this.acquisition = acquisition;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public List<String> keys() {
		return this.delegate.keys();
	}

	@Override
	public LockMode mode() {
		return this.delegate.mode();
	}

	@Override
	public boolean isAcquired() {
		return this.delegate.isAcquired();
	}

	@Override
	public long fencingToken() {
		return this.delegate.fencingToken();
	}

	@Override
	public long fencingToken(@Nullable String key) {
		return this.delegate.fencingToken(key);
	}

	@Override
	public String nodePath() {
		return this.delegate.nodePath();
	}

	@Override
	public String nodePath(@Nullable String key) {
		return this.delegate.nodePath(key);
	}

	@Override
	public boolean isHeld() {
		return this.delegate.isHeld();
	}

	@Override
	public void assertHeld() {
		this.delegate.assertHeld();
	}

	@Override
	public void extendMaxHold(Duration maxHold) {
		this.delegate.extendMaxHold(maxHold);
	}

	@Override
	public void close() {
		try {
			this.delegate.close();
		}
		finally {
			// A close refused by the handle (wrong thread) leaves the lock held
			if (!this.delegate.isAcquired()) {
				CompletableFuture<Void> lingering = (this.delegate instanceof AbstractLockContext context)
						? context.lingering() : null;
				if (lingering != null) {
					this.acquisition.releasedLingering(lingering);
				}
				else {
					this.acquisition.released();
				}
			}
		}
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
