package dev.zklock.core;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link TenureWatch} listing that fails is asked for again, so that a tenure
 * alone in its queue learns it and passes on; until then its passes stay bounded.
 * The listing fails through a {@link FaultyZooKeeper}, with the connection up.
 */
class TenureListingTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private FaultyZooKeeper faults;

	private CuratorLockManager manager;

	@BeforeEach
	void start() throws Exception {
		this.faults = new FaultyZooKeeper();
		this.manager = new CuratorLockManager(this.faults.client(), "/listing-" + UUID.randomUUID(), WAIT);
	}

	@AfterEach
	void stop() throws Exception {
		this.manager.close();
		this.faults.close();
	}

	@Test
	void aFailedListingIsAskedForAgainSoThatATenureAlonePasses() throws Exception {
		// no pass at all unless the watch vouches that nobody else waits
		this.manager.setLocalHandoffLimits(0, Duration.ofMinutes(1));
		String queue = this.manager.pathFor("hot", "k");
		CompletableFuture<Long> passed = new CompletableFuture<>();
		Thread waiter;
		long token;
		try (LockHandle holder = this.manager.acquire(hot())) {
			token = holder.fencingToken();
			// armed once the holder's own acquisition has listed the queue: it fails the tenure's listing
			this.faults.fail(FaultyZooKeeper.Op.CHILDREN, queue, 1);
			waiter = new Thread(() -> {
				try (LockHandle handle = this.manager.acquire(hot())) {
					passed.complete(handle.fencingToken());
				}
				catch (Throwable ex) {
					passed.completeExceptionally(ex);
				}
			}, "local-waiter");
			waiter.start();
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 1);
			await().atMost(WAIT).until(() -> this.faults.failed(FaultyZooKeeper.Op.CHILDREN) == 1);
			await("the failed listing, asked for again").atMost(Duration.ofSeconds(10))
				.until(() -> this.faults.answered(FaultyZooKeeper.Op.CHILDREN, queue) >= 1);
		}
		assertThat(passed.get(30, TimeUnit.SECONDS)).as("the waiter's token, passed locally")
			.isEqualTo(token);
		waiter.join(WAIT.toMillis());
		assertThat(this.manager.getLocalHandoffs().localHandoffs()).isOne();
		assertThat(this.manager.getLocalHandoffs().zooKeeperHandoffs()).isOne();
	}

	private static LockRequest hot() {
		return LockRequest.named("hot").keys("k").mode(LockMode.MUTEX).localHandoff(true).timeout(WAIT).build();
	}

}
