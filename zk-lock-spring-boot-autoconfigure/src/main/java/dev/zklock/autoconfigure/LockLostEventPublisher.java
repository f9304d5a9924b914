package dev.zklock.autoconfigure;

import java.util.function.Supplier;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.LockInfo;
import dev.zklock.LockLossListener;

/**
 * Publishes a {@link LockLostEvent} for every lock a manager loses, synchronous or
 * asynchronous. The event's source is the manager the lock was taken through: the
 * lock manager, or its asynchronous view for a lock that belongs to no thread.
 */
final class LockLostEventPublisher implements LockLossListener {

	private final Object source;

	private final Supplier<?> asyncSource;

	private final ApplicationEventPublisher publisher;

	LockLostEventPublisher(Object source, ApplicationEventPublisher publisher) {
		this(source, () -> source, publisher);
	}

	LockLostEventPublisher(Object source, Supplier<?> asyncSource, ApplicationEventPublisher publisher) {
		this.source = source;
		this.asyncSource = asyncSource;
		this.publisher = publisher;
	}

	@Override
	public void lockLost(LockInfo lock, LockLossReason reason) {
		Object asyncManager = (lock.threadId() == 0) ? this.asyncSource.get() : null;
		this.publisher.publishEvent(new LockLostEvent((asyncManager != null) ? asyncManager : this.source, lock.name(), lock.key(), lock.path(), lock.mode(),
				lock.fencingToken(), lock.threadName(), reason));
	}

}
