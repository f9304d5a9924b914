package dev.zklock.monitor;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.LockHoldWarningAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code zk-lock.hold-warning}: one WARN and one count per long hold, synchronous
 * or asynchronous, none for short ones, and the warning without Micrometer too.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockHoldMonitorTests {

	private static final String WARNING = "has been held by thread 'reporter'";

	private static final String ASYNC_WARNING = "has been held by thread 'async'";

	@RegisterExtension
	static final ClassFixture<StoppableZooKeeper> server = ClassFixture.of(StoppableZooKeeper::start);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				LockHoldWarningAutoConfiguration.class, ZkLockMetricsAutoConfiguration.class))
		.withBean(CuratorFramework.class, () -> server.get().newClient(30_000),
				(definition) -> definition.setDestroyMethodName("close"))
		.withPropertyValues("zk-lock.base-path=/holds-" + UUID.randomUUID(), "zk-lock.hold-warning=200ms");

	@Test
	void aLongHoldIsLoggedOnceAndCounted(CapturedOutput output) {
		this.contextRunner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			template.execute(LockRequest.named("reports").keys("quick").build(), () -> "quick");
			holdUntil(context.getBean(LockHoldMonitor.class), template,
					() -> registry.find("zk.lock.hold.warnings").counter() != null);
			assertThat(registry.get("zk.lock.hold.warnings").tags("name", "reports", "mode", "mutex").counter().count())
				.isOne();
			assertThat(countOccurrences(output.getOut(), WARNING)).isOne();
			assertThat(output.getOut()).contains("Lock 'reports' key 'r-1' (MUTEX mode) " + WARNING)
				.contains("longer than zk-lock.hold-warning (PT0.2S)")
				.doesNotContain("key 'quick'");
		});
	}

	@Test
	void aLongAsyncHoldIsLoggedOnceAndCounted(CapturedOutput output) {
		this.contextRunner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(Exports.class)
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				Exports exports = context.getBean(Exports.class);
				assertThat(exports.export("quick", CompletableFuture.completedFuture("quick")).get(10, TimeUnit.SECONDS))
					.isEqualTo("quick");
				CompletableFuture<String> gate = new CompletableFuture<>();
				CompletableFuture<String> export = exports.export("e-1", gate);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.find("zk.lock.hold.warnings").tag("name", "exports").counter() != null);
				// A sync hold warned after the async one proves that the monitor checked
				// the async hold again several times without warning twice
				holdUntil(context.getBean(LockHoldMonitor.class), context.getBean(LockTemplate.class),
						() -> output.getOut().contains(WARNING));
				gate.complete("exported");
				assertThat(export.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
				assertThat(registry.get("zk.lock.hold.warnings").tags("name", "exports", "mode", "mutex").counter().count())
					.isOne();
				assertThat(countOccurrences(output.getOut(), ASYNC_WARNING)).isOne();
				assertThat(output.getOut()).contains("Lock 'exports' key 'e-1' (MUTEX mode) " + ASYNC_WARNING)
					.doesNotContain("key 'quick'");
			});
	}

	@Test
	void warnsWithoutMicrometer(CapturedOutput output) {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasSingleBean(LockHoldMonitor.class).doesNotHaveBean("zkLockMetrics");
			LockTemplate template = context.getBean(LockTemplate.class);
			holdUntil(context.getBean(LockHoldMonitor.class), template, () -> output.getOut().contains(WARNING));
			assertThat(countOccurrences(output.getOut(), WARNING)).isOne();
		});
	}

	@Test
	void offUnlessConfigured() {
		this.contextRunner.withPropertyValues("zk-lock.hold-warning=").run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(LockTemplate.class).execute(LockRequest.named("reports").keys("r-1").build(), () -> "ran");
		});
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
					LockHoldWarningAutoConfiguration.class))
			.withBean(CuratorFramework.class, () -> server.get().newClient(30_000),
					(definition) -> definition.setDestroyMethodName("close"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockHoldMonitor.class));
	}

	@Test
	void rejectsANonPositiveThreshold() {
		this.contextRunner.withPropertyValues("zk-lock.hold-warning=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("zk-lock.hold-warning"));
	}

	// Holds r-1 in a thread named 'reporter' until the condition holds, and has the
	// monitor check every hold twice more before releasing it
	private static void holdUntil(LockHoldMonitor monitor, LockTemplate template, Callable<Boolean> warned)
			throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<String> holder = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				holder.complete(template.execute(LockRequest.named("reports").keys("r-1").build(), () -> {
					held.countDown();
					release.await(30, TimeUnit.SECONDS);
					return "done";
				}));
			}
			catch (Throwable ex) {
				holder.completeExceptionally(ex);
			}
		}, "reporter");
		thread.start();
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(warned);
		monitor.check();
		monitor.check();
		release.countDown();
		assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
	}

	static class Exports {

		@DistributedLock(name = "exports", key = "#key")
		public CompletableFuture<String> export(String key, CompletableFuture<String> gate) {
			return gate;
		}

	}

	private static int countOccurrences(String text, String part) {
		int count = 0;
		for (int index = text.indexOf(part); index >= 0; index = text.indexOf(part, index + 1)) {
			count++;
		}
		return count;
	}

}
