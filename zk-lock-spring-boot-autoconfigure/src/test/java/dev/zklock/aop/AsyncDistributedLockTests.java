package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.core.LockPaths;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Methods returning CompletionStage, CompletableFuture, Mono and Flux hold their
 * lock, against a real ZooKeeper server, until the returned work completes.
 */
class AsyncDistributedLockTests {

	private static final Executor LATER = CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(AsyncService.class)
		.withBean(NestedService.class)
		.withPropertyValues("zk-lock.default-timeout=60s");

	@Test
	void concurrentAsyncCallsOnOneKeyNeverOverlap() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			long start = System.nanoTime();
			List<CompletableFuture<Void>> calls = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				calls.add(service.counted("one").toCompletableFuture());
			}
			// every call returned before a single lock was handed over: none blocked the caller
			assertThat(service.entered().get()).isLessThan(200);
			CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(service.entered().get()).isEqualTo(200);
			assertThat(service.maxActive().get()).isEqualTo(1);
			System.err.println("200 async calls on one key: " + millis + " ms");
		});
	}

	@Test
	void theSameLoadOverlapsWithoutTheLock() throws Exception {
		AsyncService service = new AsyncService();
		List<CompletableFuture<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			calls.add(CompletableFuture.supplyAsync(() -> service.counted("one"))
				.thenCompose((stage) -> stage.toCompletableFuture()));
		}
		CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
		assertThat(service.maxActive().get()).isGreaterThan(1);
	}

	@Test
	void lockIsHeldUntilTheReturnedFutureCompletes() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> holder = service.held("k", gate);
			assertThat(service.bodyStarted().await(10, TimeUnit.SECONDS)).isTrue();
			long contenderStart = System.nanoTime();
			CompletableFuture<Long> contender = service.stamp("k").toCompletableFuture();
			CompletableFuture.delayedExecutor(700, TimeUnit.MILLISECONDS).execute(() -> gate.complete("done"));
			long stamped = contender.get(30, TimeUnit.SECONDS);
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - contenderStart);
			assertThat(holder.get(1, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(waitedMillis).isGreaterThanOrEqualTo(650);
			// the contender's body ran only after the holder's future completed
			assertThat(stamped).isGreaterThanOrEqualTo(service.gateCompletedAt().get());
			System.err.println("contender waited " + waitedMillis + " ms for a future completed after 700 ms");
		});
	}

	@Test
	void disposingAWaitingSubscriptionRemovesItsNode() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String lockPath = lockPath(context, "shared", "k");
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> holder = service.held("k", gate);
			assertThat(service.bodyStarted().await(10, TimeUnit.SECONDS)).isTrue();
			Disposable waiter = service.mono("k").subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> client.getChildren().forPath(lockPath).size() == 2);
			waiter.dispose();
			await().atMost(Duration.ofSeconds(10)).until(() -> client.getChildren().forPath(lockPath).size() == 1);
			CompletableFuture<String> waiting = service.held("k", new CompletableFuture<>());
			await().atMost(Duration.ofSeconds(10)).until(() -> client.getChildren().forPath(lockPath).size() == 2);
			waiting.cancel(true);
			await().atMost(Duration.ofSeconds(10)).until(() -> client.getChildren().forPath(lockPath).size() == 1);
			gate.complete("done");
			holder.get(10, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(10)).until(() -> TestZooKeeper.ephemeralNodes(client, lockPath) == 0);
			assertThat(service.monoBodies().get()).isZero();
			assertThat(service.heldBodies().get()).isEqualTo(1);
		});
	}

	@Test
	void cancellingRunningWorkReleasesTheLock() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String lockPath = lockPath(context, "shared", "k");
			CompletableFuture<String> never = new CompletableFuture<>();
			CompletableFuture<String> holder = service.held("k", never);
			assertThat(service.bodyStarted().await(10, TimeUnit.SECONDS)).isTrue();
			holder.cancel(true);
			assertThat(holder).isCancelled();
			await().atMost(Duration.ofSeconds(10)).until(() -> TestZooKeeper.ephemeralNodes(client, lockPath) == 0);
			Disposable running = service.flux("k", Flux.never()).subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> TestZooKeeper.ephemeralNodes(client, lockPath) == 1);
			running.dispose();
			await().atMost(Duration.ofSeconds(10)).until(() -> TestZooKeeper.ephemeralNodes(client, lockPath) == 0);
		});
	}

	@Test
	void failingWorkReleasesTheLock() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String lockPath = lockPath(context, "shared", "k");
			IllegalStateException failure = new IllegalStateException("boom");
			CompletableFuture<String> failed = service.held("k", CompletableFuture.failedFuture(failure));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
				.withCause(failure);
			assertThat(TestZooKeeper.ephemeralNodes(client, lockPath)).isZero();
			CompletableFuture<String> thrown = service.throwing("k");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> thrown.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(UnsupportedOperationException.class);
			assertThat(TestZooKeeper.ephemeralNodes(client, lockPath)).isZero();
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> service.flux("k", Flux.error(failure)).blockLast(Duration.ofSeconds(10)));
			assertThat(TestZooKeeper.ephemeralNodes(client, lockPath)).isZero();
			// a try-once call gets the lock at once: nothing was left behind
			assertThat(service.tryOnce("k").get(10, TimeUnit.SECONDS)).isEqualTo("got it");
		});
	}

	@Test
	void timeoutThrowsSkipsOrFallsBack() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> holder = service.held("k", gate);
			assertThat(service.bodyStarted().await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<String> thrown = service.tryOnce("k");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> thrown.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockTimeoutException.class)
				.withMessageContaining("AsyncService.tryOnce(String)");
			assertThat(service.skipping("k").get(10, TimeUnit.SECONDS)).isNull();
			assertThat(service.monoSkipping("k").blockOptional(Duration.ofSeconds(10))).isEmpty();
			assertThat(service.withFallback("k").get(10, TimeUnit.SECONDS)).startsWith("fallback: Lock 'shared'");
			assertThat(service.monoWithFallback("k").block(Duration.ofSeconds(10))).isEqualTo("mono fallback");
			gate.complete("done");
			holder.get(10, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> TestZooKeeper.ephemeralNodes(client, basePath(context)) == 0);
		});
	}

	@Test
	void fencingTokenReachesTheAsyncWork() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			long first = service.token("k", null).get(10, TimeUnit.SECONDS);
			long second = service.token("k", null).get(10, TimeUnit.SECONDS);
			assertThat(first).isPositive();
			assertThat(second).isGreaterThan(first);
			long fromReactor = service.reactorToken("k").block(Duration.ofSeconds(10));
			assertThat(fromReactor).isGreaterThan(second);
			assertThat(service.bodyContextTokens()).containsExactly(first, second);
		});
	}

	@Test
	void nestedAcquisitionOfTheSameKeyFailsFast() {
		this.contextRunner.run((context) -> {
			NestedService nested = context.getBean(NestedService.class);
			long start = System.nanoTime();
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> nested.outerMono("k").block(Duration.ofSeconds(10)))
				.withMessageContaining("not re-entrant")
				.withMessageContaining("AsyncService.mono(String)");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> nested.outerStage("k").get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockException.class)
				.withMessageContaining("not re-entrant");
			assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(5);
			// another key nests fine
			assertThat(nested.outerMonoOtherKey("k").block(Duration.ofSeconds(10))).isEqualTo("inner");
		});
	}

	private static String basePath(ApplicationContext context) {
		return context.getEnvironment().getProperty("zk-lock.base-path");
	}

	private static String lockPath(ApplicationContext context, String name, String key) {
		return basePath(context) + "/" + LockPaths.encode(name) + "/" + LockPaths.encode(key);
	}

	static class AsyncService {

		final AtomicInteger active = new AtomicInteger();

		final AtomicInteger maxActive = new AtomicInteger();

		final AtomicInteger entered = new AtomicInteger();

		final CountDownLatch bodyStarted = new CountDownLatch(1);

		final AtomicLong gateCompletedAt = new AtomicLong(Long.MAX_VALUE);

		final AtomicInteger monoBodies = new AtomicInteger();

		final AtomicInteger heldBodies = new AtomicInteger();

		final List<Long> bodyContextTokens = new CopyOnWriteArrayList<>();

		public AtomicInteger active() {
			return this.active;
		}

		public AtomicInteger maxActive() {
			return this.maxActive;
		}

		public AtomicInteger entered() {
			return this.entered;
		}

		public CountDownLatch bodyStarted() {
			return this.bodyStarted;
		}

		public AtomicLong gateCompletedAt() {
			return this.gateCompletedAt;
		}

		public AtomicInteger monoBodies() {
			return this.monoBodies;
		}

		public AtomicInteger heldBodies() {
			return this.heldBodies;
		}

		public List<Long> bodyContextTokens() {
			return this.bodyContextTokens;
		}

		@DistributedLock(name = "counted", key = "#key")
		public CompletionStage<Void> counted(String key) {
			this.entered.incrementAndGet();
			int now = this.active.incrementAndGet();
			this.maxActive.accumulateAndGet(now, Math::max);
			return CompletableFuture.runAsync(() -> this.active.decrementAndGet(), LATER);
		}

		@DistributedLock(name = "shared", key = "#key")
		public CompletableFuture<String> held(String key, CompletableFuture<String> gate) {
			this.heldBodies.incrementAndGet();
			this.bodyStarted.countDown();
			return gate.whenComplete((value, ex) -> this.gateCompletedAt.set(System.nanoTime()));
		}

		@DistributedLock(name = "shared", key = "#key")
		public CompletionStage<Long> stamp(String key) {
			return CompletableFuture.completedFuture(System.nanoTime());
		}

		@DistributedLock(name = "shared", key = "#key", timeout = "0")
		public CompletableFuture<String> tryOnce(String key) {
			return CompletableFuture.completedFuture("got it");
		}

		@DistributedLock(name = "shared", key = "#key")
		public CompletableFuture<String> throwing(String key) {
			throw new UnsupportedOperationException("thrown by the body");
		}

		@DistributedLock(name = "shared", key = "#key", timeout = "200ms", onTimeout = OnTimeout.SKIP)
		public CompletableFuture<String> skipping(String key) {
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "shared", key = "#key", timeout = "200ms", onTimeout = OnTimeout.SKIP)
		public Mono<String> monoSkipping(String key) {
			return Mono.just("ran");
		}

		@DistributedLock(name = "shared", key = "#key", timeout = "200ms", fallbackMethod = "recover")
		public CompletableFuture<String> withFallback(String key) {
			return CompletableFuture.completedFuture("ran");
		}

		CompletableFuture<String> recover(String key, LockException cause) {
			return CompletableFuture.completedFuture("fallback: " + cause.getMessage());
		}

		@DistributedLock(name = "shared", key = "#key", timeout = "200ms", fallbackMethod = "recoverMono")
		public Mono<String> monoWithFallback(String key) {
			return Mono.just("ran");
		}

		Mono<String> recoverMono(String key) {
			return Mono.just("mono fallback");
		}

		@DistributedLock(name = "shared", key = "#key")
		public Mono<String> mono(String key) {
			this.monoBodies.incrementAndGet();
			return Mono.just("mono");
		}

		@DistributedLock(name = "shared", key = "#key")
		public Flux<String> flux(String key, Flux<String> items) {
			return items;
		}

		@DistributedLock(name = "token", key = "#key")
		public CompletableFuture<Long> token(String key, FencingToken token) {
			this.bodyContextTokens.add(LockContext.current().fencingToken());
			return CompletableFuture.supplyAsync(token::value);
		}

		@DistributedLock(name = "token", key = "#key")
		public Mono<Long> reactorToken(String key) {
			return Mono.deferContextual((context) -> Mono.just(context.get(LockContext.class).fencingToken()));
		}

	}

	static class NestedService {

		private final AsyncService inner;

		NestedService(AsyncService inner) {
			this.inner = inner;
		}

		@DistributedLock(name = "shared", key = "#key")
		public Mono<String> outerMono(String key) {
			return Mono.just(key).flatMap(this.inner::mono);
		}

		@DistributedLock(name = "shared", key = "#key")
		public Mono<String> outerMonoOtherKey(String key) {
			return Mono.just(key + "-other").flatMap(this.inner::mono).map((value) -> "inner");
		}

		@DistributedLock(name = "shared", key = "#key")
		public CompletableFuture<String> outerStage(String key) {
			return this.inner.tryOnce(key);
		}

	}

}
