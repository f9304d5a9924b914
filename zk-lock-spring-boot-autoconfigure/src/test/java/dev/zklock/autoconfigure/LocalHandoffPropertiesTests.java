package dev.zklock.autoconfigure;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.aop.HotKeyRound;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockManager;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code zk-lock.local-handoff.*} bind with their defaults and bound the tenures
 * of the auto-configured lock manager: once another process waits, a tenure
 * passes the key to a local waiter only within both bounds.
 */
class LocalHandoffPropertiesTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner();

	private final TestThreads threads = new TestThreads("local-handoff");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			defaults                                                                  | 16 | 50ms
			zk-lock.local-handoff.max-passes=3, zk-lock.local-handoff.max-time=2s | 3  | 2s
			""")
	void valuesBindAndReachTheManager(String properties, int maxPasses, String maxTime) {
		this.contextRunner.withPropertyValues(properties.equals("defaults") ? new String[0] : properties.split(", "))
			.run((context) -> {
				ZkLockProperties.LocalHandoff localHandoff = context.getBean(ZkLockProperties.class).getLocalHandoff();
				assertThat(localHandoff.getMaxPasses()).isEqualTo(maxPasses);
				assertThat(localHandoff.getMaxTime()).isEqualTo(DurationStyle.detectAndParse(maxTime));
				assertThat(HotKeyRound.manager(context).getLocalHandoffs().maxPasses()).isEqualTo(maxPasses);
			});
	}

	// a lock manager of the application's own leaves the asynchronous one an engine of its own, bounded alike
	@Test
	void valuesReachAnAsynchronousManagerWithAnEngineOfItsOwn() {
		this.contextRunner.withPropertyValues("zk-lock.local-handoff.max-passes=3")
			.withBean("ownLockManager", LockManager.class, () -> (request) -> {
				throw new UnsupportedOperationException("not used here");
			})
			.run((context) -> {
				assertThat(context).hasSingleBean(LockManager.class).hasBean("ownLockManager");
				assertThat(context.getBean(AsyncLockManager.class).getLocalHandoffs().maxPasses()).isEqualTo(3);
			});
	}

	@Test
	void aBadValueStopsTheContextNamingTheProperty() {
		this.contextRunner.withPropertyValues("zk-lock.local-handoff.max-passes=-2").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidZkLockPropertyException.class)
				.hasMessage("Invalid value '-2' for property 'zk-lock.local-handoff.max-passes': it must not be "
						+ "negative. Set 'zk-lock.local-handoff.max-passes' to a number of passes such as 16, or to 0 "
						+ "to send every local waiter through ZooKeeper once another process waits.");
		});
	}

	/**
	 * A local thread holds the key, another local thread waits, and then another
	 * process: on release, the local waiter goes first only while the tenure is
	 * within both bounds.
	 */
	@ParameterizedTest(name = "max-passes={0}, max-time={1}: {2}")
	@CsvSource(delimiter = '|', textBlock = """
			16 | 1m | local, other
			0  | 1m | other, local
			16 | 0s | other, local
			""")
	void theBoundsDecideWhetherTheLocalWaiterGoesBeforeAnotherProcess(int maxPasses, String maxTime,
			String expected) {
		this.contextRunner
			.withPropertyValues("zk-lock.local-handoff.max-passes=" + maxPasses,
					"zk-lock.local-handoff.max-time=" + maxTime)
			.run((context) -> {
				CuratorLockManager manager = HotKeyRound.manager(context);
				LockRequest request = LockRequest.named("hot")
					.keys("k")
					.localHandoff(true)
					.timeout(HotKeyRound.WAIT)
					.build();
				List<String> order = new CopyOnWriteArrayList<>();
				CuratorFramework otherClient = TestZooKeeper.newClient();
				try (otherClient) {
					CuratorLockManager other = new CuratorLockManager(otherClient, manager.getBasePath(),
							HotKeyRound.WAIT);
					CompletableFuture<Void> local;
					CompletableFuture<Void> remote;
					try (OtherInstance.Holder holder = OtherInstance.hold(manager, request, "local-holder")) {
						local = CompletableFuture.runAsync(() -> holdOnce(manager, request, order, "local"),
								this.threads);
						await().atMost(HotKeyRound.WAIT).until(() -> manager.getRegistry().waitingCount() == 1);
						remote = CompletableFuture.runAsync(() -> holdOnce(other, request, order, "other"),
								this.threads);
						await("the tenure learns that another process waits").atMost(HotKeyRound.WAIT)
							.until(() -> manager.getLocalHandoffs().tenures().get(0).othersWaiting());
					}
					CompletableFuture.allOf(local, remote).get(HotKeyRound.WAIT.toSeconds(), TimeUnit.SECONDS);
				}
				assertThat(String.join(", ", order)).isEqualTo(expected);
			});
	}

	private static void holdOnce(CuratorLockManager manager, LockRequest request, List<String> order, String who) {
		try (LockHandle handle = manager.acquire(request)) {
			if (handle.isAcquired()) {
				order.add(who);
			}
		}
	}

}
