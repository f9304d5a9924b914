package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlockException;

/**
 * One wait published for deadlock detection: the ephemeral sequential record node
 * under {@code <base-path>/#waits} that holds one {@link WaitRecord}, from its
 * create to its delete. The record is immutable, so a wait that changes (a next
 * key, a re-queue) ends this one and publishes another. Created on the manager's
 * own client, so a session loss takes it away with the wait's queue node.
 * <p>
 * {@link #end()} may come before the create is answered: the node is then deleted
 * from the create's callback, as {@link QueueAttempt} does with an abandoned node.
 * Nobody waits for that delete: it goes on in the background (Curator's guaranteed
 * delete sends it again after a connection loss), and a record whose session ends
 * goes with it, so the wait's caller is answered by its deadline even while
 * ZooKeeper is silent.
 * Once created, a watch on the record tells its detector of a nudge (another
 * instance found this wait the victim of a cycle); {@link #deadlocked} ends the
 * wait once a verdict committed.
 */
final class PublishedWait {

	private static final Logger logger = LoggerFactory.getLogger(PublishedWait.class);

	private final CuratorFramework client;

	private final WaitRecord record;

	private final Consumer<PublishedWait> onEnd;

	private final Runnable onChange;

	private final Predicate<LockDeadlockException> victim;

	// a verdict on this wait is under way or committed
	private final AtomicBoolean judged = new AtomicBoolean();

	private final ReentrantLock lock = new ReentrantLock();

	// under the lock: the record node's path once created
	private @Nullable String path;

	// written under the lock; read without it by the record's watch
	private volatile boolean ended;

	// the create failed: the wait is not published, the acquisition publishes it again
	private volatile boolean failed;

	/**
	 * @param client the manager's client
	 * @param record what is published
	 * @param onEnd told once the wait ends, so that its detector forgets it
	 * @param onChange told once the record exists, and at each nudge, so that its
	 * detector searches
	 * @param victim ends the wait with the exception, telling whether it was still
	 * pending
	 */
	PublishedWait(CuratorFramework client, WaitRecord record, Consumer<PublishedWait> onEnd, Runnable onChange,
			Predicate<LockDeadlockException> victim) {
		this.client = client;
		this.record = record;
		this.onEnd = onEnd;
		this.onChange = onChange;
		this.victim = victim;
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
			logger.debug("Lock '{}' key '{}': the wait record could not be sent", this.record.waitsFor().name(),
					LockPaths.abbreviate(this.record.waitsFor().key()), ex);
		}
	}

	private void created(CuratorEvent event) {
		if (!Nodes.isOk(event)) {
			this.failed = true;
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
			watch(event.getName());
			this.onChange.run();
		}
	}

	// A nudge writes the record's data: search at once, and watch for the next one
	private void watch(String created) {
		try {
			this.client.getData().usingWatcher((Watcher) (event) -> {
				if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !isEnded()) {
					watch(created);
					this.onChange.run();
				}
			}).inBackground().forPath(created);
		}
		catch (Exception ex) {
			// the periodic rounds find the cycle without the nudge
			logger.debug("Lock '{}' key '{}': no watch on wait record {}", this.record.waitsFor().name(),
					LockPaths.abbreviate(this.record.waitsFor().key()), created, ex);
		}
	}

	private boolean isEnded() {
		return this.ended;
	}

	/**
	 * Claim the one verdict on this wait.
	 * @return whether none was under way or committed
	 */
	boolean startVerdict() {
		return this.judged.compareAndSet(false, true);
	}

	/**
	 * The verdict did not commit.
	 * @param recordMaybeGone whether its outcome is unknown (a connection loss): the
	 * record may be gone, so the wait is published again
	 */
	void verdictFailed(boolean recordMaybeGone) {
		if (recordMaybeGone) {
			this.failed = true;
		}
		this.judged.set(false);
	}

	/**
	 * The verdict committed: end the wait with the exception.
	 * @param failure the exception, with the report
	 * @return whether the wait was still pending; {@code false} when it was granted
	 * or ended meanwhile
	 */
	boolean deadlocked(LockDeadlockException failure) {
		return this.victim.test(failure);
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
	 * The wait ended: delete the record, now or once created, in the background.
	 * Curator keeps trying after a connection loss, and the record is ephemeral, so
	 * it goes with its session should that end first.
	 */
	void end() {
		String created;
		this.lock.lock();
		try {
			if (this.ended) {
				return;
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
	}

	private void deleteRecord(String created) {
		Nodes.delete(this.client, created).whenComplete((ignored, ex) -> {
			if (ex != null) {
				// guaranteed: Curator deletes it later, or it goes with its session
				logger.debug("Lock '{}' key '{}': wait record {} not deleted yet", this.record.waitsFor().name(),
						LockPaths.abbreviate(this.record.waitsFor().key()), created, ex);
			}
		});
	}

}
