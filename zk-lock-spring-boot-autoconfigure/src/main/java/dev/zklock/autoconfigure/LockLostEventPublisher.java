package dev.zklock.autoconfigure;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.core.LockInfo;
import dev.zklock.core.LockLossListener;

/**
 * Publishes a {@link LockLostEvent} for every lock a manager loses, synchronous or
 * asynchronous.
 */
final class LockLostEventPublisher implements LockLossListener {

	private final Object source;

	private final ApplicationEventPublisher publisher;

	LockLostEventPublisher(Object source, ApplicationEventPublisher publisher) {
		this.source = source;
		this.publisher = publisher;
	}

	@Override
	public void lockLost(LockInfo lock, LockLossReason reason) {
		this.publisher.publishEvent(new LockLostEvent(this.source, lock.name(), lock.key(), lock.path(), lock.mode(),
				lock.fencingToken(), lock.threadName(), reason));
	}

}
