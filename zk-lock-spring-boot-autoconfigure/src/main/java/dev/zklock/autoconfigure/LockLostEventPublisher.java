package dev.zklock.autoconfigure;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.core.LockInfo;
import dev.zklock.core.LockLossListener;
import dev.zklock.core.LockManager;

/**
 * Publishes a {@link LockLostEvent} for every lock the manager loses.
 */
final class LockLostEventPublisher implements LockLossListener {

	private final LockManager source;

	private final ApplicationEventPublisher publisher;

	LockLostEventPublisher(LockManager source, ApplicationEventPublisher publisher) {
		this.source = source;
		this.publisher = publisher;
	}

	@Override
	public void lockLost(LockInfo lock, LockLossReason reason) {
		this.publisher.publishEvent(new LockLostEvent(this.source, lock.name(), lock.key(), lock.path(), lock.mode(),
				lock.fencingToken(), lock.threadName(), reason));
	}

}
