package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.StandardEnvironment;

import dev.zklock.FencingToken;
import dev.zklock.LockRequest;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.LocalHandoffs;
import dev.zklock.LocalTenure;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock(localHandoff = true)} reaches the lock request of
 * blocking, {@code CompletionStage} and {@code Mono} methods alike: calls of one
 * process on one key share one ZooKeeper node and one fencing token, and pass the
 * key among themselves; without the attribute, or with several keys, each call
 * takes a node of its own.
 */
class LocalHandoffDistributedLockTests {

	private static final int WAITERS = 5;

	private final ApplicationContextRunner contextRunner = HotKeyRound.contextRunner();

	private final TestThreads threads = new TestThreads("hot-caller");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@ParameterizedTest
	@EnumSource(Kind.class)
	void callsOnOneKeyShareOneNodeAndPassTheKeyLocally(Kind kind) {
		this.contextRunner.run((context) -> {
			CuratorLockManager manager = HotKeyRound.manager(context);
			List<Long> tokens;
			try (HotKeyRound round = HotKeyRound.start(context, kind.call(context, this.threads), WAITERS)) {
				assertThat(ephemeralNodes(context)).as("the tenure's node, for the holder and its local waiters")
					.isEqualTo(1);
				LocalTenure tenure = manager.getLocalHandoffs().tenures().get(0);
				assertThat(tenure.name()).isEqualTo("hot");
				assertThat(tenure.key()).isEqualTo("k");
				assertThat(tenure.waiters()).isEqualTo(WAITERS);
				tokens = round.finish();
			}
			assertThat(tokens).as("one tenure, one token").hasSize(WAITERS + 1).containsOnly(tokens.get(0));
			LocalHandoffs handoffs = manager.getLocalHandoffs();
			assertThat(handoffs.zooKeeperHandoffs()).isEqualTo(1);
			assertThat(handoffs.localHandoffs()).isEqualTo(WAITERS);
			await().atMost(HotKeyRound.WAIT).until(() -> ephemeralNodes(context) == 0);
			assertThat(handoffs.tenures()).isEmpty();
		});
	}

	@Test
	void withoutTheAttributeEachCallTakesANodeOfItsOwn() {
		this.contextRunner.run((context) -> {
			HotKeyService service = context.getBean(HotKeyService.class);
			HotKeyRound.Call call = (release) -> CompletableFuture
				.supplyAsync(() -> service.withoutHandoff("k", null, release), this.threads);
			List<Long> tokens;
			try (HotKeyRound round = HotKeyRound.start(context, call, WAITERS)) {
				assertThat(ephemeralNodes(context)).isEqualTo(WAITERS + 1);
				assertThat(HotKeyRound.manager(context).getLocalHandoffs().tenures()).isEmpty();
				tokens = round.finish();
			}
			assertThat(tokens).as("a token per holder").doesNotHaveDuplicates();
			assertThat(HotKeyRound.manager(context).getLocalHandoffs().localHandoffs()).isZero();
			assertThat(HotKeyRound.manager(context).getLocalHandoffs().zooKeeperHandoffs()).isZero();
		});
	}

	@Test
	void aCallOnSeveralKeysTakesNodesOfItsOwn() {
		this.contextRunner.run((context) -> {
			HotKeyService service = context.getBean(HotKeyService.class);
			CuratorLockManager manager = HotKeyRound.manager(context);
			CompletableFuture<Void> release = new CompletableFuture<>();
			CompletableFuture<Long> call = CompletableFuture
				.supplyAsync(() -> service.twoKeys("a", "b", null, release), this.threads);
			await().atMost(HotKeyRound.WAIT).until(() -> manager.getRegistry().heldCount() == 2);
			assertThat(ephemeralNodes(context)).isEqualTo(2);
			assertThat(manager.getLocalHandoffs().tenures()).isEmpty();
			release.complete(null);
			assertThat(call.get(30, TimeUnit.SECONDS)).isPositive();
			assertThat(manager.getLocalHandoffs().zooKeeperHandoffs()).isZero();
		});
	}

	@Test
	void theOperationBuildsRequestsWithLocalHandoff() throws Exception {
		LockOperationSource source = new LockOperationSource(new StandardEnvironment(), null);
		LockOperation hot = source.getOperation(
				HotKeyService.class.getMethod("stage", String.class, FencingToken.class, CompletableFuture.class),
				HotKeyService.class);
		LockRequest request = hot.createRequest(new Object[] { "k", null, null }, null);
		assertThat(hot.isLocalHandoff()).isTrue();
		assertThat(request.localHandoff()).isTrue();
		assertThat(request.usesLocalHandoff()).isTrue();
		LockOperation cold = source.getOperation(HotKeyService.class.getMethod("withoutHandoff", String.class,
				FencingToken.class, CompletableFuture.class), HotKeyService.class);
		assertThat(cold.createRequest(new Object[] { "k", null, null }, null).localHandoff()).isFalse();
	}

	@Test
	void localHandoffWithASemaphoreStopsTheContext() {
		this.contextRunner.withBean(SemaphoreWithHandoff.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining(SemaphoreWithHandoff.class.getName() + ".pay(String)")
				.hasMessageContaining("localHandoff = true does not apply to mode = SEMAPHORE")
				.hasMessageContaining("remove localHandoff, or use MUTEX, READ or WRITE");
		});
	}

	@Test
	void localHandoffWithReadAndWriteStarts() {
		this.contextRunner.withBean(ReadWriteWithHandoff.class).run((context) -> assertThat(context).hasNotFailed());
	}

	private static int ephemeralNodes(ApplicationContext context) throws Exception {
		return TestZooKeeper.ephemeralNodes(context.getBean(CuratorFramework.class),
				HotKeyRound.manager(context).getBasePath());
	}

	/**
	 * How a locked method is called.
	 */
	enum Kind {

		BLOCKING, COMPLETION_STAGE, MONO;

		HotKeyRound.Call call(ApplicationContext context, TestThreads threads) {
			HotKeyService service = context.getBean(HotKeyService.class);
			return switch (this) {
				case BLOCKING -> HotKeyRound.blocking(context, threads, "k");
				case COMPLETION_STAGE -> (release) -> service.stage("k", null, release);
				case MONO -> (release) -> service.mono("k", null, release).toFuture();
			};
		}

	}

	static class SemaphoreWithHandoff {

		@DistributedLock(key = "#gateway", mode = LockMode.SEMAPHORE, permits = 4, localHandoff = true)
		public String pay(String gateway) {
			return gateway;
		}

	}

	static class ReadWriteWithHandoff {

		@DistributedLock(key = "#id", mode = LockMode.READ, localHandoff = true)
		public String read(String id) {
			return id;
		}

		@DistributedLock(key = "#id", mode = LockMode.WRITE, localHandoff = true)
		public String write(String id) {
			return id;
		}

	}

}
