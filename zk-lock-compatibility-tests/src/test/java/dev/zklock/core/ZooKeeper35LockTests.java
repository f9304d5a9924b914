package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LockQueueReader;
import dev.zklock.actuate.LockQueuesDescriptor;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the contract tests do not cover, against a ZooKeeper 3.5 server: fencing tokens
 * of successive holders increase in every mode, two sessions exclude each other,
 * asynchronous locks work, the container sweep removes released locks' parents, and
 * the locks endpoint reads the queues; no node is left behind.
 */
class ZooKeeper35LockTests {

	private static CuratorFramework first;

	private static CuratorFramework second;

	private String basePath;

	private CuratorLockManager manager;

	private CuratorLockManager otherManager;

	@BeforeAll
	static void connect() throws Exception {
		assertThat(ZooKeeper35.server().version()).startsWith("3.5.");
		first = ZooKeeper35.connect();
		second = ZooKeeper35.connect();
	}

	@AfterAll
	static void disconnect() {
		first.close();
		second.close();
	}

	@BeforeEach
	void createManagers() {
		this.basePath = "/zk35-" + UUID.randomUUID();
		this.manager = new CuratorLockManager(first, this.basePath, Duration.ofSeconds(10));
		this.otherManager = new CuratorLockManager(second, this.basePath, Duration.ofSeconds(10));
	}

	@AfterEach
	void closeManagers() {
		this.manager.close();
		this.otherManager.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void fencingTokensOfSuccessiveHoldersIncrease(LockMode mode) throws Exception {
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			CuratorLockManager holder = (i % 2 == 0) ? this.manager : this.otherManager;
			try (LockHandle handle = holder.acquire(LockRequest.named("fenced").keys("k").mode(mode).build())) {
				assertThat(handle.isAcquired()).isTrue();
				tokens.add(handle.fencingToken());
			}
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(first, this.basePath)).isEmpty();
	}

	@Test
	void twoSessionsExcludeEachOther() throws Exception {
		LockRequest request = LockRequest.named("exclusive").keys("k").build();
		try (LockHandle held = this.manager.acquire(request)) {
			assertThat(held.isAcquired()).isTrue();
			assertThat(this.otherManager.acquire(request.withTimeout(Duration.ZERO)).isAcquired()).isFalse();
			assertThat(this.otherManager.acquire(request.withTimeout(Duration.ofMillis(300))).isAcquired()).isFalse();
		}
		try (LockHandle next = this.otherManager.acquire(request.withTimeout(Duration.ZERO))) {
			assertThat(next.isAcquired()).isTrue();
		}
		assertThat(ZooKeeperTestSupport.ephemeralNodes(first, this.basePath)).isEmpty();
	}

	@Test
	void theContainerSweepRemovesTheParentsOfReleasedLocksInEveryMode() throws Exception {
		for (LockMode mode : LockMode.values()) {
			for (int i = 0; i < 20; i++) {
				try (LockHandle handle = this.manager
					.acquire(LockRequest.named(mode.name()).keys("key-" + i).mode(mode).permits(2).build())) {
					assertThat(handle.isAcquired()).isTrue();
				}
			}
		}
		assertThat(ZooKeeperTestSupport.tree(first, this.basePath)).hasSizeGreaterThan(1);
		await().atMost(Duration.ofSeconds(60)).until(() -> ZooKeeperTestSupport.tree(first, this.basePath).size() <= 1);
	}

	@Test
	void theLocksEndpointReadsTheQueuesOfEveryProcess() throws Exception {
		LockRequest request = LockRequest.named("queued").keys("k").build();
		try (LockHandle held = this.manager.acquire(request)) {
			CompletableFuture<Boolean> waiter = CompletableFuture
				.supplyAsync(() -> this.otherManager.acquire(request.withTimeout(Duration.ofSeconds(20))).isAcquired());
			await().until(() -> participants("queued") == 2);
			LockQueuesDescriptor queues = new LockQueueReader(second).read(this.basePath, "queued");
			assertThat(queues.keys()).singleElement()
				.satisfies((key) -> assertThat(key.participants()).extracting(Participant::state)
					.containsExactly("HELD", "WAITING"));
			held.close();
			assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
		}
	}

	private int participants(String name) {
		LockQueuesDescriptor queues = new LockQueueReader(first).read(this.basePath, name);
		return (queues == null) ? 0 : queues.keys().stream().mapToInt((key) -> key.participants().size()).sum();
	}

	@Test
	void asynchronousLocksExcludeSynchronousOnesAndTheirTokensIncrease() throws Exception {
		AsyncLockManager async = new AsyncLockManager(second, this.basePath, Duration.ofSeconds(10));
		LockRequest request = LockRequest.named("async").keys("k").build();
		AsyncLockHandle first = async.acquire(request).get(10, TimeUnit.SECONDS);
		assertThat(this.manager.acquire(request.withTimeout(Duration.ZERO)).isAcquired()).isFalse();
		long firstToken = first.fencingToken();
		first.release().get(10, TimeUnit.SECONDS);
		AsyncLockHandle again = async.acquire(request).get(10, TimeUnit.SECONDS);
		assertThat(again.fencingToken()).isGreaterThan(firstToken);
		again.release().get(10, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(ZooKeeper35LockTests.first, this.basePath)).isEmpty();
	}

}
