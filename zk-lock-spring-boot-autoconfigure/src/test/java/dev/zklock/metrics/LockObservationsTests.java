package dev.zklock.metrics;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockRequest;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockObservationAutoConfiguration;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * One observation per locked call, from the wait to the release, in scope while
 * the method runs, with low cardinality keys only.
 */
class LockObservationsTests {

	@RegisterExtension
	static final ClassFixture<StoppableZooKeeper> server = ClassFixture.of(StoppableZooKeeper::start);

	private final String basePath = "/observations-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				ZkLockObservationAutoConfiguration.class))
		.withBean(CuratorFramework.class, () -> server.get().newClient(30_000),
				(definition) -> definition.setDestroyMethodName("close"))
		.withUserConfiguration(ObservationConfiguration.class)
		.withPropertyValues("zk-lock.base-path=" + this.basePath);

	@Test
	void observesAcquireAndHoldWithTheMethodInScope() {
		this.contextRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			RecordingHandler handler = context.getBean(RecordingHandler.class);
			assertThat(ledger.post("acct-1")).isEqualTo("zk.lock.execution");
			assertThat(handler.stopped).hasSize(1);
			Observation.Context observed = handler.stopped.get(0);
			assertThat(observed.getName()).isEqualTo("zk.lock.execution");
			assertThat(observed.getContextualName()).isEqualTo("zk.lock ledger");
			assertThat(keys(observed.getLowCardinalityKeyValues())).containsExactlyInAnyOrderEntriesOf(
					Map.of("zk.lock.name", "ledger", "zk.lock.mode", "write", "zk.lock.outcome", "acquired"));
			assertThat(observed.getHighCardinalityKeyValues()).isEmpty();
			assertThat(ledger.observedInMethod()).isSameAs(observed);
			assertThat(context.getBean(ObservationRegistry.class).getCurrentObservation()).isNull();
		});
	}

	@Test
	void observesTimeoutsAndSkips() {
		this.contextRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			RecordingHandler handler = context.getBean(RecordingHandler.class);
			try (OtherInstance other = new OtherInstance(server.get(), this.basePath);
					OtherInstance.Holder holder = other.hold(
							LockRequest.named("ledger").keys("acct-1").mode(LockMode.WRITE).build(), "other")) {
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> ledger.postOrFail("acct-1"));
				assertThat(ledger.postOrSkip("acct-1")).isNull();
			}
			assertThat(handler.stopped).hasSize(2);
			assertThat(handler.stopped).extracting((observed) -> observed.getLowCardinalityKeyValue("zk.lock.outcome").getValue())
				.containsExactly("timeout", "skipped");
			assertThat(handler.stopped.get(0).getError()).isNull();
			assertThat(handler.started).hasSize(2);
		});
	}

	@Test
	void aConventionBeanOfTheUserNamesTheKeyValues() {
		this.contextRunner.withBean(LockObservationConvention.class, RenamingConvention::new).run((context) -> {
			context.getBean(Ledger.class).post("acct-1");
			RecordingHandler handler = context.getBean(RecordingHandler.class);
			assertThat(handler.stopped).hasSize(1);
			Observation.Context observed = handler.stopped.get(0);
			assertThat(observed).isInstanceOf(LockObservationContext.class);
			assertThat(observed.getName()).isEqualTo("zk.lock.execution");
			assertThat(keys(observed.getLowCardinalityKeyValues())).containsExactlyInAnyOrderEntriesOf(Map.of("lock",
					"ledger", "zk.lock.mode", "write", "zk.lock.outcome", "acquired", "zk.lock.keys", "1"));
		});
	}

	@Test
	void theContextCarriesTheRequestAndOutcome() {
		this.contextRunner.run((context) -> {
			context.getBean(Ledger.class).post("acct-1");
			LockObservationContext observed = (LockObservationContext) context.getBean(RecordingHandler.class).stopped
				.get(0);
			assertThat(observed.getRequest().name()).isEqualTo("ledger");
			assertThat(observed.getRequest().keys()).containsExactly("acct-1");
			assertThat(observed.getOutcome()).isEqualTo(LockOutcome.ACQUIRED);
		});
	}

	private static Map<String, String> keys(Iterable<KeyValue> keyValues) {
		return StreamSupport.stream(keyValues.spliterator(), false)
			.collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
	}

	@Configuration(proxyBeanMethods = false)
	static class ObservationConfiguration {

		@Bean
		RecordingHandler recordingHandler() {
			return new RecordingHandler();
		}

		@Bean
		ObservationRegistry observationRegistry(RecordingHandler handler) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(handler);
			return registry;
		}

		@Bean
		Ledger ledger(ObservationRegistry registry) {
			return new Ledger(registry);
		}

	}

	/**
	 * Renames the name key and adds the number of keys, as a user would.
	 */
	static class RenamingConvention extends DefaultLockObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
			List<KeyValue> kept = super.getLowCardinalityKeyValues(context).stream()
				.filter((keyValue) -> !keyValue.getKey().equals(NAME))
				.toList();
			return KeyValues.of(kept)
				.and("lock", context.getRequest().name())
				.and("zk.lock.keys", Integer.toString(context.getRequest().keys().size()));
		}

	}

	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<Observation.Context> started = new CopyOnWriteArrayList<>();

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		final List<Observation.Context> scopesOpened = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Observation.Context context) {
			this.started.add(context);
		}

		@Override
		public void onScopeOpened(Observation.Context context) {
			this.scopesOpened.add(context);
		}

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class Ledger {

		private final ObservationRegistry registry;

		private volatile Observation.Context scopeInMethod;

		Ledger(ObservationRegistry registry) {
			this.registry = registry;
		}

		public Observation.Context observedInMethod() {
			return this.scopeInMethod;
		}

		@DistributedLock(name = "ledger", key = "#account", mode = LockMode.WRITE, timeout = "5s")
		public String post(String account) {
			Observation current = this.registry.getCurrentObservation();
			this.scopeInMethod = current.getContext();
			return current.getContext().getName();
		}

		@DistributedLock(name = "ledger", key = "#account", mode = LockMode.WRITE, timeout = "100ms")
		public String postOrFail(String account) {
			return "posted";
		}

		@DistributedLock(name = "ledger", key = "#account", mode = LockMode.WRITE, timeout = "100ms",
				onTimeout = OnTimeout.SKIP)
		public String postOrSkip(String account) {
			return "posted";
		}

	}


}
