package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.autoconfigure.ZkLockProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nested annotated calls on the same key in the same thread re-enter the lock
 * they already hold instead of deadlocking.
 */
class DistributedLockReentrancyTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withUserConfiguration(NestedConfiguration.class)
		.withPropertyValues("zk-lock.default-timeout=5s");

	@Test
	void nestedCallsThreeDeepHoldOneNodeReleasedAtTheOutermostExit() {
		this.contextRunner.run((context) -> {
			Outer outer = context.getBean(Outer.class);
			assertThat(AopUtils.isAopProxy(outer)).isTrue();
			assertThat(AopUtils.isAopProxy(context.getBean(Middle.class))).isTrue();
			assertThat(AopUtils.isAopProxy(context.getBean(Inner.class))).isTrue();
			Probe probe = context.getBean(Probe.class);
			outer.run("order-1");
			// outer before, middle before, inner, middle after, outer after
			assertThat(probe.events).containsExactly("outer:1", "middle:1", "inner:1", "middle:1", "outer:1");
			assertThat(probe.nodes()).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class NestedConfiguration {

		@Bean
		Probe probe(CuratorFramework client, ZkLockProperties properties) {
			return new Probe(client, properties.getBasePath());
		}

		@Bean
		Inner inner(Probe probe) {
			return new Inner(probe);
		}

		@Bean
		Middle middle(Probe probe, Inner inner) {
			return new Middle(probe, inner);
		}

		@Bean
		Outer outer(Probe probe, Middle middle) {
			return new Outer(probe, middle);
		}

	}

	static class Probe {

		final List<String> events = new CopyOnWriteArrayList<>();

		private final CuratorFramework client;

		private final String basePath;

		Probe(CuratorFramework client, String basePath) {
			this.client = client;
			this.basePath = basePath;
		}

		void record(String level) {
			this.events.add(level + ":" + nodes());
		}

		int nodes() {
			try {
				return TestZooKeeper.ephemeralNodes(this.client, this.basePath);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	static class Outer {

		private final Probe probe;

		private final Middle middle;

		Outer(Probe probe, Middle middle) {
			this.probe = probe;
			this.middle = middle;
		}

		@DistributedLock(name = "nested", key = "#id")
		public void run(String id) {
			this.probe.record("outer");
			this.middle.run(id);
			this.probe.record("outer");
		}

	}

	static class Middle {

		private final Probe probe;

		private final Inner inner;

		Middle(Probe probe, Inner inner) {
			this.probe = probe;
			this.inner = inner;
		}

		@DistributedLock(name = "nested", key = "#p0")
		public void run(String orderId) {
			this.probe.record("middle");
			this.inner.run(orderId);
			this.probe.record("middle");
		}

	}

	static class Inner {

		private final Probe probe;

		Inner(Probe probe) {
			this.probe = probe;
		}

		@DistributedLock(name = "nested", key = "#a0")
		public void run(String orderId) {
			this.probe.record("inner");
		}

	}

}
