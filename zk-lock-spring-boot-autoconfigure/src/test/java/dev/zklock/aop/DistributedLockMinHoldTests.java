package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.LockLostEvent;
import dev.zklock.actuate.LockQueueReader;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.actuate.LocksEndpoint.LockDescriptor;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A try-once {@code @DistributedLock} job with a {@code minHold}, in two
 * application contexts on one ZooKeeper: once the job returned, the endpoint shows
 * its lock held with the method finished, the other instance skips the job until
 * the shortest hold has passed, and a graceful shutdown neither waits for the kept
 * lock nor announces it lost: it ends with the client's session.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockMinHoldTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(Job.class)
		.withBean(LostEvents.class);

	@Test
	void theOtherInstanceSkipsTheJobUntilMinHoldHasPassed() {
		this.contextRunner.run((first) -> {
			String basePath = first.getBean(ZkLockProperties.class).getBasePath();
			ApplicationContextRunner second = this.contextRunner.withPropertyValues("zk-lock.base-path=" + basePath);
			second.run((other) -> {
				long start = System.nanoTime();
				assertThat(first.getBean(Job.class).run()).isEqualTo("ran");
				LocksEndpoint endpoint = endpoint(first);
				assertThat(endpoint.locks().held()).isOne();
				LockDescriptor kept = endpoint.locks().locks().get(0);
				assertThat(kept.state()).isEqualTo("HELD");
				assertThat(kept.methodFinished()).isTrue();
				assertThat(kept.fencingToken()).isPositive();
				Job otherJob = other.getBean(Job.class);
				assertThat(otherJob.run()).as("skipped while kept").isNull();
				await().atMost(WAIT).until(() -> otherJob.run() != null);
				Duration after = Duration.ofNanos(System.nanoTime() - start);
				assertThat(after).isGreaterThanOrEqualTo(Job.MIN_HOLD);
				assertThat(first.getBean(Job.class).runs()).isOne();
				assertThat(otherJob.runs()).isOne();
				assertThat(first.getBean(LostEvents.class).events).isEmpty();
			});
		});
	}

	@Test
	void aGracefulShutdownNeitherWaitsForTheKeptLockNorAnnouncesItAndTheLockEndsWithTheSession(
			CapturedOutput output) {
		this.contextRunner.run((first) -> {
			String basePath = first.getBean(ZkLockProperties.class).getBasePath();
			CuratorFramework observer = TestZooKeeper.newClient();
			try {
				assertThat(first.getBean(Job.class).run()).isEqualTo("ran");
				assertThat(TestZooKeeper.ephemeralNodes(observer, basePath)).isOne();
				List<LockLostEvent> events = first.getBean(LostEvents.class).events;
				long start = System.nanoTime();
				((ConfigurableApplicationContext) first.getSourceApplicationContext()).close();
				Duration closed = Duration.ofNanos(System.nanoTime() - start);
				assertThat(closed).as("the drain does not wait for the kept lock").isLessThan(Duration.ofSeconds(2));
				assertThat(events).as("not announced as lost").isEmpty();
				assertThat(output).doesNotContain("given up at shutdown")
					.contains("stay held for their minHold until it passes or the ZooKeeper session closes");
				// the client closed with the context, and its session with it: the node went then, before minHold
				assertThat(TestZooKeeper.ephemeralNodes(observer, basePath)).isZero();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Job.MIN_HOLD);
			}
			finally {
				observer.close();
			}
		});
	}

	private static LocksEndpoint endpoint(org.springframework.context.ApplicationContext context) {
		CuratorLockManager manager = (CuratorLockManager) context.getBean(LockManager.class);
		return new LocksEndpoint(() -> manager, new LockQueueReader(context.getBean(CuratorFramework.class)));
	}

	static class Job {

		static final Duration MIN_HOLD = Duration.ofSeconds(3);

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "3s")
		public String run() {
			this.runs.incrementAndGet();
			return "ran";
		}

	}

	static class LostEvents implements ApplicationListener<LockLostEvent> {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LockLostEvent event) {
			this.events.add(event);
		}

	}

}
