package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rounds of a writer that waits behind a holder that downgrades: thread A holds
 * WRITE; writer B joins the queue and reads it (one node ahead, A's write node); A
 * takes READ inside its WRITE and releases the WRITE. B must not hold WRITE until
 * A has released the READ too. Each round records whether B's grant came while A
 * still held its READ, which is an overlap of a reader and a writer.
 */
final class DowngradeRounds {

	private final boolean localHandoff;

	// long enough for a wrong grant, which came within 0-6 ms, to show before the READ goes
	private static final Duration WINDOW = Duration.ofMillis(25);

	private static final Duration POLL = Duration.ofMillis(2);

	private final CuratorLockManager holder;

	private final CuratorLockManager writer;

	private final AsyncLockManager asyncWriter;

	private final CuratorFramework writerClient;

	private final AtomicInteger overlaps = new AtomicInteger();

	/**
	 * Rounds between a holder's manager and a writer's, which may share a client.
	 */
	DowngradeRounds(CuratorLockManager holder, CuratorLockManager writer, AsyncLockManager asyncWriter,
			CuratorFramework writerClient) {
		this(holder, writer, asyncWriter, writerClient, false);
	}

	/**
	 * Rounds whose WRITE and READ requests use local hand-off or not.
	 */
	DowngradeRounds(CuratorLockManager holder, CuratorLockManager writer, AsyncLockManager asyncWriter,
			CuratorFramework writerClient, boolean localHandoff) {
		this.localHandoff = localHandoff;
		this.holder = holder;
		this.writer = writer;
		this.asyncWriter = asyncWriter;
		this.writerClient = writerClient;
	}

	/**
	 * Run one round on a key, the writer through {@code api}.
	 */
	void round(LockApi api, String key) throws Exception {
		LockRequest write = LockRequest.named("rw").keys(key).mode(LockMode.WRITE).localHandoff(this.localHandoff)
			.build();
		LockRequest read = LockRequest.named("rw").keys(key).mode(LockMode.READ).localHandoff(this.localHandoff)
			.build();
		// a local waiter of the holder's own manager queues in the process, not in ZooKeeper
		boolean queuesLocally = this.localHandoff && this.holder == this.writer;
		String path = this.holder.pathFor("rw", key);
		AtomicBoolean readReleasing = new AtomicBoolean();
		AtomicBoolean granted = new AtomicBoolean();
		try (LockHandle writeHandle = this.holder.acquire(write)) {
			assertThat(writeHandle.isAcquired()).isTrue();
			LockApi.Waiter waiter = api.startWaiting(this.writer, this.asyncWriter, write, () -> {
				if (!readReleasing.get()) {
					this.overlaps.incrementAndGet();
				}
				granted.set(true);
			});
			await().pollDelay(Duration.ZERO).pollInterval(POLL).atMost(Duration.ofSeconds(10))
				.until(() -> queuesLocally ? this.writer.getRegistry().waitingCount() == 1
						: this.writerClient.getChildren().forPath(path).size() == 2);
			// answered after the writer's first read of the queue, sent on the same session before it
			this.writerClient.getChildren().forPath(path);
			LockHandle readHandle = this.holder.acquire(read);
			try {
				assertThat(readHandle.isAcquired()).isTrue();
				writeHandle.close();
				await("the writer waits while the downgraded READ is held").pollInterval(POLL)
					.during(WINDOW)
					.atMost(Duration.ofSeconds(5))
					.until(() -> !granted.get());
				readReleasing.set(true);
			}
			finally {
				readHandle.close();
			}
			assertThat(waiter.outcome().get(30, TimeUnit.SECONDS)).as("the writer got the lock").isTrue();
		}
	}

	int overlaps() {
		return this.overlaps.get();
	}

}
