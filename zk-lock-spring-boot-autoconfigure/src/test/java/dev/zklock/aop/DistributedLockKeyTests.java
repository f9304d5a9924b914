package dev.zklock.aop;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockKeyException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockManager;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lock names and keys the annotation produces, type-level declarations, key
 * errors at call time and release when the method throws.
 */
class DistributedLockKeyTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withUserConfiguration(KeyConfiguration.class)
		.withPropertyValues("zk-lock.default-timeout=5s");

	@Test
	void keysFromParameterNamesIndexesRootAndBeans() {
		this.contextRunner.run((context) -> {
			KeyService service = context.getBean(KeyService.class);
			RecordingLockManager recorder = recorder(context);
			service.byName(new Order("o-1", null));
			assertThat(recorder.last().keys()).containsExactly("o-1");
			service.byP0("p");
			assertThat(recorder.last().keys()).containsExactly("p");
			service.byA0(42L);
			assertThat(recorder.last().keys()).containsExactly("42");
			service.byRootMethodName();
			assertThat(recorder.last().keys()).containsExactly("byRootMethodName");
			service.byBean("b");
			assertThat(recorder.last().keys()).containsExactly("tenant-7:b");
			service.withoutKey();
			assertThat(recorder.last().keys()).isEmpty();
			assertThat(service.calls()).isEqualTo(6);
		});
	}

	@Test
	void namesDefaultToUserClassAndMethod() {
		this.contextRunner.run((context) -> {
			KeyService service = context.getBean(KeyService.class);
			RecordingLockManager recorder = recorder(context);
			assertThat(service.getClass().getName()).contains("$$");
			service.byP0("p");
			assertThat(recorder.last().name()).isEqualTo("KeyService.byP0");
			service.named("p");
			assertThat(recorder.last().name()).isEqualTo("orders");
			assertThat(recorder.last().mode()).isEqualTo(LockMode.WRITE);
		});
	}

	@Test
	void interfaceDeclarationWorksThroughJdkProxy() {
		this.contextRunner.withBean(Greeter.class, DefaultGreeter::new).run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
			assertThat(greeter.greet("ada")).isEqualTo("hello ada");
			assertThat(recorder(context).last()).extracting(LockRequest::name, LockRequest::keys)
				.containsExactly("DefaultGreeter.greet", List.of("ada"));
		});
	}

	@Test
	void collectionAndArrayKeysAreLockedTogether() {
		this.contextRunner.run((context) -> {
			KeyService service = context.getBean(KeyService.class);
			RecordingLockManager recorder = recorder(context);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String basePath = context.getBean(ZkLockProperties.class).getBasePath();
			int heldDuringCall = service.byCollection(List.of("c", "a", "b"),
					() -> TestZooKeeper.ephemeralNodes(client, basePath));
			assertThat(recorder.last().keys()).containsExactlyInAnyOrder("a", "b", "c");
			assertThat(heldDuringCall).isEqualTo(3);
			assertThat(TestZooKeeper.ephemeralNodes(client, basePath)).isZero();
			service.byArray(new long[] { 3, 1 });
			assertThat(recorder.last().keys()).containsExactlyInAnyOrder("1", "3");
		});
	}

	@Test
	void typeLevelDeclarationLocksEveryPublicMethodAndMethodLevelWins() {
		this.contextRunner.run((context) -> {
			TypeLevelService service = context.getBean(TypeLevelService.class);
			RecordingLockManager recorder = recorder(context);
			service.first("x");
			assertThat(recorder.last()).extracting(LockRequest::name, LockRequest::keys)
				.containsExactly("TypeLevelService.first", List.of("x"));
			service.second("y");
			assertThat(recorder.last()).extracting(LockRequest::name, LockRequest::keys)
				.containsExactly("TypeLevelService.second", List.of("y"));
			service.overridden("z");
			assertThat(recorder.last()).extracting(LockRequest::name, LockRequest::keys)
				.containsExactly("special", List.of("special-z"));
			recorder.clear();
			service.notPublic("w");
			assertThat(recorder.requests()).isEmpty();
			assertThat(service.calls()).isEqualTo(4);
		});
	}

	@Test
	void nullKeyFailsNamingMethodAndExpressionAndLeavesNothingInZooKeeper() {
		this.contextRunner.run((context) -> {
			KeyService service = context.getBean(KeyService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String basePath = context.getBean(ZkLockProperties.class).getBasePath();
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byName(new Order(null, null)))
				.withMessageContaining("'#order.id'")
				.withMessageContaining("KeyService.byName(Order)")
				.withMessageContaining("evaluated to null");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byCustomer(new Order("o", null)))
				.withMessageContaining("'#order.customer.id'")
				.withMessageContaining("KeyService.byCustomer(Order)")
				.withMessageContaining("could not be evaluated");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byP0(" "))
				.withMessageContaining("blank");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byCollection(Arrays.asList("a", null), () -> 0))
				.withMessageContaining("null at element 1");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byCollection(List.of(), () -> 0))
				.withMessageContaining("empty collection");
			assertThat(service.calls()).isEqualTo(0);
			assertThat(TestZooKeeper.allNodes(client, basePath)).isZero();
		});
	}

	@Test
	void methodExceptionPassesThroughUnchangedAndTheLockIsReleased() {
		this.contextRunner.run((context) -> {
			KeyService service = context.getBean(KeyService.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String basePath = context.getBean(ZkLockProperties.class).getBasePath();
			IllegalStateException failure = new IllegalStateException("boom");
			assertThatThrownBy(() -> service.failing("k", failure)).isSameAs(failure).hasNoSuppressedExceptions();
			IOException checked = new IOException("disk");
			assertThatThrownBy(() -> service.failingChecked("k", checked)).isSameAs(checked);
			assertThat(TestZooKeeper.ephemeralNodes(client, basePath)).isZero();
			// Released: another thread takes the same lock and reaches the method again
			try (TestThreads threads = new TestThreads("other")) {
				CompletableFuture<Void> other = CompletableFuture.runAsync(() -> service.failing("k", failure), threads);
				assertThatThrownBy(() -> other.get(10, TimeUnit.SECONDS)).cause().isSameAs(failure);
			}
		});
	}

	private static RecordingLockManager recorder(AssertableApplicationContext context) {
		return (RecordingLockManager) context.getBean(LockManager.class);
	}

	record Customer(String id) {
	}

	record Order(String id, Customer customer) {
	}

	@FunctionalInterface
	interface NodeCounter {

		int count() throws Exception;

	}

	interface Greeter {

		@DistributedLock(key = "#name")
		String greet(String name);

	}

	static class DefaultGreeter implements Greeter {

		@Override
		public String greet(String name) {
			return "hello " + name;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class KeyConfiguration {

		@Bean
		LockManager recordingLockManager(CuratorFramework client, ZkLockProperties properties) {
			return new RecordingLockManager(
					new CuratorLockManager(client, properties.getBasePath(), properties.getDefaultTimeout()));
		}

		@Bean
		TenantKeys tenantKeys() {
			return new TenantKeys();
		}

		@Bean
		KeyService keyService() {
			return new KeyService();
		}

		@Bean
		TypeLevelService typeLevelService() {
			return new TypeLevelService();
		}

	}

	static class TenantKeys {

		public String prefixed(String key) {
			return "tenant-7:" + key;
		}

	}

	static class KeyService {

		final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "#order.id")
		public void byName(Order order) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#order.customer.id")
		public void byCustomer(Order order) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#p0")
		public void byP0(String id) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#a0")
		public void byA0(long id) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#root.method.name")
		public void byRootMethodName() {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "@tenantKeys.prefixed(#id)")
		public void byBean(String id) {
			this.calls.incrementAndGet();
		}

		@DistributedLock
		public void withoutKey() {
			this.calls.incrementAndGet();
		}

		@DistributedLock(name = "orders", key = "#id", mode = LockMode.WRITE)
		public void named(String id) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#ids")
		public int byCollection(List<String> ids, NodeCounter counter) throws Exception {
			this.calls.incrementAndGet();
			return counter.count();
		}

		@DistributedLock(key = "#ids")
		public void byArray(long[] ids) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#id")
		public void failing(String id, RuntimeException failure) {
			throw failure;
		}

		@DistributedLock(key = "#id")
		public void failingChecked(String id, IOException failure) throws IOException {
			throw failure;
		}

	}

	@DistributedLock(key = "#p0")
	static class TypeLevelService {

		final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		public void first(String id) {
			this.calls.incrementAndGet();
		}

		public void second(String id) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(name = "special", key = "'special-' + #id")
		public void overridden(String id) {
			this.calls.incrementAndGet();
		}

		void notPublic(String id) {
			this.calls.incrementAndGet();
		}

	}

}
