package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the contract tests do not cover, against a ZooKeeper 3.5 server: fencing tokens
 * of successive holders increase in every mode, two sessions exclude each other, and
 * asynchronous locks work; no node is left behind.
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
