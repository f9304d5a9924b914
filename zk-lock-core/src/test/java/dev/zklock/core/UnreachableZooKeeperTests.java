package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.ZooKeeperProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A timeout holds while ZooKeeper is unreachable: with the server stopped, or
 * behind a proxy that silently drops the traffic, every blocking and asynchronous
 * call in every mode and with several keys returns within its timeout plus 250 ms,
 * with Curator's own connection timeout and retries as zk-lock configures them.
 * Once ZooKeeper answers again no node is left behind and the next acquisition
 * succeeds. The calls of one test run at once, so that each test costs about its
 * longest timeout.
 */
class UnreachableZooKeeperTests {

	private static final Logger logger = LoggerFactory.getLogger(UnreachableZooKeeperTests.class);

	private static final Duration SLACK = Duration.ofMillis(250);

	private static final List<Duration> TIMEOUTS = List.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(5));

	private final List<AutoCloseable> resources = new ArrayList<>();

	private InJvmZooKeeper server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private AsyncLockManager asyncManager;

	private final String basePath = "/unreachable-" + UUID.randomUUID();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void everyCallEndsByItsDeadlineWhileTheServerIsStopped() throws Exception {
		this.server = keep(InJvmZooKeeper.builder().start());
		connect(this.server.connectString());
		this.server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getReachability().isUnreachable());
		List<Call> calls = callEverything();
		for (Call call : calls) {
			assertThat(call.elapsed()).as(call.description()).isLessThanOrEqualTo(call.timeout().plus(SLACK));
			// Curator knows the connection is suspended: the failure says so, rather than "not acquired"
			assertThat(call.failure()).as(call.description())
				.isInstanceOf(LockException.class)
				.hasMessageContaining("'" + call.request().name() + "'")
				.hasMessageContaining("unreachable since")
				.hasMessageContaining(this.server.connectString())
				.hasMessageContaining("zk-lock.connect-string");
		}
		this.server.restart();
		assertRecovered(calls);
	}

	@Test
	void everyCallEndsByItsDeadlineWhileTheTrafficIsDropped() throws Exception {
		this.server = keep(InJvmZooKeeper.builder().start());
		ZooKeeperProxy proxy = keep(ZooKeeperProxy.start("unreachable", List.of(this.server.port())));
		connect(proxy.connectString());
		proxy.blackhole();
		List<Call> calls = callEverything();
		for (Call call : calls) {
			assertThat(call.elapsed()).as(call.description()).isLessThanOrEqualTo(call.timeout().plus(SLACK));
			// Curator still counts the connection as up: nothing answered, so nothing acquired
			assertThat(call.acquired()).as(call.description()).isFalse();
			if (call.failure() != null) {
				assertThat(call.failure()).as(call.description()).isInstanceOf(LockException.class);
			}
		}
		proxy.pass();
		assertRecovered(calls);
	}

	// Found by a generated schedule (seed 20261128, docs/failures.md): a single try of two keys held its caller
	// until Curator suspended the connection when the traffic stopped after the first key was taken
	@Test
	void aSingleTryEndsSoonWhenTheTrafficStopsAfterItsFirstKey() throws Exception {
		this.server = keep(InJvmZooKeeper.builder().start());
		ZooKeeperProxy proxy = keep(ZooKeeperProxy.start("silent", List.of(this.server.port())));
		connect(proxy.connectString());
		List<Call> calls = new ArrayList<>();
		for (boolean blocking : List.of(true, false)) {
			LockRequest request = LockRequest.named("silent-" + blocking).keys("a", "b").timeout(Duration.ZERO).build();
			CompletableFuture<Long> silent = proxy.blackholeAfterNextCreate("/silent-" + blocking + "/b/");
			Call call = (blocking ? blocking(request) : async(request)).get(30, TimeUnit.SECONDS);
			assertThat(silent).as("the proxy fell silent after the first key").isDone();
			Duration bound = Duration.ofNanos(Acquisition.ANSWER_GRACE_NANOS + Acquisition.SLOW_ANSWER_LIMIT_NANOS)
				.plus(SLACK);
			assertThat(call.elapsed()).as(call.description()).isLessThanOrEqualTo(bound);
			assertThat(call.acquired()).as(call.description()).isFalse();
			assertThat(call.failure()).as(call.description()).isNull();
			calls.add(call);
			proxy.pass();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath).isEmpty());
		}
		assertRecovered(calls);
	}

	// Connected as zk-lock connects by default: 15 s connection timeout, exponential retries
	private void connect(String connectString) throws Exception {
		this.client = keep(CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(40_000)
			.connectionTimeoutMs(15_000)
			.retryPolicy(new BoundedExponentialBackoffRetry(100, 5_000, 10))
			.build());
		this.client.start();
		assertThat(this.client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
		this.manager = keep(new CuratorLockManager(this.client, this.basePath, Duration.ofSeconds(30)));
		this.asyncManager = keep(this.manager.async(null));
		// every path exists and every code path ran once, so the calls below time ZooKeeper, not class loading
		for (LockRequest request : requests(Duration.ZERO)) {
			try (LockHandle handle = this.manager.acquire(request)) {
				assertThat(handle.isAcquired()).isTrue();
			}
			AsyncLockHandle handle = this.asyncManager.acquire(request).get(10, TimeUnit.SECONDS);
			assertThat(handle.isAcquired()).isTrue();
			handle.release().get(10, TimeUnit.SECONDS);
		}
	}

	// Every mode, multi-key, blocking and asynchronous, every timeout: all at once
	private List<Call> callEverything() throws Exception {
		List<CompletableFuture<Call>> calls = new ArrayList<>();
		for (Duration timeout : TIMEOUTS) {
			for (LockRequest request : requests(timeout)) {
				calls.add(blocking(request));
				calls.add(async(request));
			}
		}
		CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
		List<Call> done = calls.stream().map(CompletableFuture::join).toList();
		for (Duration timeout : TIMEOUTS) {
			logger.info("{} calls with timeout {} returned after {} at most", done.size() / TIMEOUTS.size(), timeout,
					done.stream().filter((call) -> call.timeout().equals(timeout)).map(Call::elapsed).max(Duration::compareTo));
		}
		return done;
	}

	private CompletableFuture<Call> blocking(LockRequest request) {
		CompletableFuture<Call> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			long start = System.nanoTime();
			try (LockHandle handle = this.manager.acquire(request)) {
				result.complete(new Call("blocking", request, handle.isAcquired(), null, since(start)));
			}
			catch (RuntimeException ex) {
				result.complete(new Call("blocking", request, false, ex, since(start)));
			}
		}, "blocking-" + request.name());
		thread.start();
		return result;
	}

	private CompletableFuture<Call> async(LockRequest request) {
		long start = System.nanoTime();
		return this.asyncManager.acquire(request).handle((handle, ex) -> {
			Duration elapsed = since(start);
			if (handle != null && handle.isAcquired()) {
				handle.release();
			}
			return new Call("async", request, handle != null && handle.isAcquired(), LockEngine.unwrap(ex), elapsed);
		});
	}

	private void assertRecovered(List<Call> calls) throws Exception {
		await().atMost(Duration.ofSeconds(30)).until(() -> !this.manager.getReachability().isUnreachable());
		await().atMost(Duration.ofSeconds(30))
			.until(() -> ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath).isEmpty());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().snapshot().isEmpty());
		assertThat(calls).noneMatch(Call::acquired);
		for (LockRequest request : requests(Duration.ofSeconds(5))) {
			try (LockHandle handle = this.manager.acquire(request)) {
				assertThat(handle.isAcquired()).as(request.name()).isTrue();
				assertThat(handle.isHeld()).as(request.name()).isTrue();
			}
		}
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	private static List<LockRequest> requests(Duration timeout) {
		List<LockRequest> requests = new ArrayList<>();
		for (LockMode mode : LockMode.values()) {
			requests.add(LockRequest.named(mode.name().toLowerCase() + "-" + timeout.toMillis())
				.keys("k")
				.mode(mode)
				.permits((mode == LockMode.SEMAPHORE) ? 2 : 1)
				.timeout(timeout)
				.build());
		}
		requests.add(LockRequest.named("multi-" + timeout.toMillis()).keys("a", "b", "c").timeout(timeout).build());
		return requests;
	}

	private static Duration since(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	private <T extends AutoCloseable> T keep(T resource) {
		this.resources.add(resource);
		return resource;
	}

	private record Call(String caller, LockRequest request, boolean acquired, @Nullable Throwable failure,
			Duration elapsed) {

		Duration timeout() {
			return (this.request.timeout() != null) ? this.request.timeout() : Duration.ZERO;
		}

		String description() {
			return this.caller + " " + this.request.name() + " " + this.request.mode() + " after " + this.elapsed
					+ ", failure " + this.failure;
		}

	}

}
