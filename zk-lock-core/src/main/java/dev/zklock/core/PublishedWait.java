package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One wait published for deadlock detection: the ephemeral sequential record node
 * under {@code <base-path>/#waits} that holds one {@link WaitRecord}, from its
 * create to its delete. The record is immutable, so a wait that changes (a next
 * key, a re-queue) ends this one and publishes another. Created on the manager's
 * own client, so a session loss takes it away with the wait's queue node.
 * <p>
 * {@link #end()} may come before the create is answered: the node is then deleted
 * from the create's callback, as {@link QueueAttempt} does with an abandoned node.
 */
final class PublishedWait {

	private static final Logger logger = LoggerFactory.getLogger(PublishedWait.class);

	private final CuratorFramework client;

	private final WaitRecord record;

	private final Consumer<PublishedWait> onEnd;

	private final Runnable onCreated;

	private final ReentrantLock lock = new ReentrantLock();

	// under the lock: the record node's path once created
	private @Nullable String path;

	// under the lock
	private boolean ended;

	// the create failed: the wait is not published, the acquisition publishes it again
	private volatile boolean failed;

	// completes once the wait ended and no record is left
	private final CompletableFuture<Void> removed = new CompletableFuture<>();

	/**
	 * @param client the manager's client
	 * @param record what is published
	 * @param onEnd told once the wait ends, so that its detector forgets it
	 * @param onCreated told once the record exists, so that its detector searches
	 */
	PublishedWait(CuratorFramework client, WaitRecord record, Consumer<PublishedWait> onEnd, Runnable onCreated) {
		this.client = client;
		this.record = record;
		this.onEnd = onEnd;
		this.onCreated = onCreated;
	}

	/**
	 * Send the record's create.
	 * @param waitsPath the path of the records, {@code <base-path>/#waits}
	 */
	void publish(String waitsPath) {
		try {
			Nodes.create(this.client, waitsPath + "/w-", CreateMode.EPHEMERAL_SEQUENTIAL, this.record.encode(),
					(c, event) -> created(event));
		}
		catch (Exception ex) {
			this.failed = true;
			this.removed.complete(null);
			logger.debug("Lock '{}' key '{}': the wait record could not be sent", this.record.waitsFor().name(),
					LockPaths.abbreviate(this.record.waitsFor().key()), ex);
		}
	}

	private void created(CuratorEvent event) {
		if (!Nodes.isOk(event)) {
			this.failed = true;
			this.removed.complete(null);
			logger.debug("Lock '{}' key '{}': the wait record was not created: {}", this.record.waitsFor().name(),
					LockPaths.abbreviate(this.record.waitsFor().key()), Nodes.error(event).code());
			return;
		}
		boolean endedMeanwhile;
		this.lock.lock();
		try {
			this.path = event.getName();
			endedMeanwhile = this.ended;
		}
		finally {
			this.lock.unlock();
		}
		if (endedMeanwhile) {
			deleteRecord(event.getName());
		}
		else {
			logger.debug("Lock '{}' key '{}' ({}): wait published at {}", this.record.waitsFor().name(),
					LockPaths.abbreviate(this.record.waitsFor().key()), this.record.waitsFor().mode(),
					event.getName());
			this.onCreated.run();
		}
	}

	/**
	 * Whether this record stands for a wait with the given node: published, or on
	 * its way, and not ended.
	 * @param nodePath the full path of the node waited with now
	 * @return whether the record says so; {@code false} asks for a new one
	 */
	boolean standsFor(String nodePath) {
		return !this.failed && this.record.nodePath().equals(nodePath);
	}

	/**
	 * The record node's path.
	 * @return the path, {@code null} while its create is unanswered or failed
	 */
	@Nullable String path() {
		this.lock.lock();
		try {
			return this.path;
		}
		finally {
			this.lock.unlock();
		}
	}

	WaitRecord record() {
		return this.record;
	}

	/**
	 * The wait ended: delete the record (Curator keeps trying after a connection
	 * loss; one gone with its session counts as deleted), now or once created.
	 * @return completes once no record is left, never exceptionally
	 */
	CompletableFuture<Void> end() {
		String created;
		this.lock.lock();
		try {
			if (this.ended) {
				return this.removed;
			}
			this.ended = true;
			created = this.path;
		}
		finally {
			this.lock.unlock();
		}
		if (created != null) {
			deleteRecord(created);
		}
		this.onEnd.accept(this);
		return this.removed;
	}

	private void deleteRecord(String created) {
		Nodes.delete(this.client, created).whenComplete((ignored, ex) -> {
			if (ex != null) {
				// guaranteed: Curator deletes it later, or it goes with its session
				logger.debug("Lock '{}' key '{}': wait record {} not deleted yet", this.record.waitsFor().name(),
						LockPaths.abbreviate(this.record.waitsFor().key()), created, ex);
			}
			this.removed.complete(null);
		});
	}

}
