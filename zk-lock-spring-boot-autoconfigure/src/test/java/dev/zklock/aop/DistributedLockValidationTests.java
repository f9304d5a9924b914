package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Declarations that cannot work stop the context from starting, with a message
 * that names the class, the method and the attribute at fault.
 */
class DistributedLockValidationTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner();

	static Stream<Arguments> invalidDeclarations() {
		return Stream.of(
				Arguments.of(UnparseableKey.class, List.of("UnparseableKey.place(Order)", "'#order.id +'", "does not parse")),
				Arguments.of(UnknownParameter.class,
						List.of("UnknownParameter.place(Order)", "'#ordr.id'", "'#ordr'", "#order", "#p0")),
				Arguments.of(IndexOutOfRange.class, List.of("IndexOutOfRange.place(Order)", "'#p1'", "1 parameter")),
				Arguments.of(UnknownBean.class, List.of("UnknownBean.place(Order)", "'@missingBean'", "does not exist")),
				Arguments.of(BadTimeout.class, List.of("BadTimeout.place(Order)", "timeout \"5 seconds\"", "\"250ms\"")),
				Arguments.of(NegativeTimeout.class, List.of("NegativeTimeout.place(Order)", "timeout \"-1s\"", "negative")),
				Arguments.of(ZeroMaxHold.class, List.of("ZeroMaxHold.place(Order)", "maxHold \"0\"", "not positive",
						"\"10m\"")),
				Arguments.of(BadMaxHold.class, List.of("BadMaxHold.place(Order)", "maxHold \"ten minutes\"",
						"is not a duration")),
				Arguments.of(MaxHoldShorterThanTimeout.class, List.of("MaxHoldShorterThanTimeout.place(Order)",
						"maxHold \"1s\" is shorter than timeout PT5S", "raise maxHold or lower the timeout")),
				Arguments.of(MaxHoldBelowOneTick.class, List.of("MaxHoldBelowOneTick.place(Order)",
						"maxHold \"5\" is 5 ms, less than one tick of zk-lock's clock (zk-lock.pause-detection.tick = "
								+ "PT0.01S)",
						"a bare number means milliseconds", "\"30s\"")),
				Arguments.of(BadMinHold.class, List.of("BadMinHold.place(Order)", "minHold \"a while\"",
						"is not a duration", "\"900ms\"")),
				Arguments.of(NegativeMinHold.class, List.of("NegativeMinHold.place(Order)", "minHold \"-1s\"",
						"is negative", "leave it empty for none")),
				Arguments.of(MinHoldLongerThanMaxHold.class, List.of("MinHoldLongerThanMaxHold.place(Order)",
						"minHold \"30s\" is longer than maxHold \"10s\"", "lower minHold or raise maxHold")),
				Arguments.of(UnresolvablePlaceholder.class,
						List.of("UnresolvablePlaceholder.place(Order)", "${missing.lock-timeout}", "define the property")),
				Arguments.of(MissingFallback.class,
						List.of("MissingFallback.place(Order)", "fallbackMethod 'noSuchMethod' does not exist",
								"String noSuchMethod(Order)")),
				Arguments.of(WrongFallbackParameters.class,
						List.of("WrongFallbackParameters.place(Order)", "wrong parameters", "recover(String)")),
				Arguments.of(WrongFallbackReturnType.class,
						List.of("WrongFallbackReturnType.place(Order)", "returns Integer but place returns String")),
				Arguments.of(SkipOnPrimitive.class,
						List.of("SkipOnPrimitive.count(Order)", "onTimeout = SKIP", "returns int", "return Integer")),
				Arguments.of(FutureReturn.class,
						List.of("FutureReturn.placeLater(Order)", "Future", "asynchronous", "CompletionStage")),
				Arguments.of(NoPermits.class, List.of("NoPermits.place(Order)", "permits = 0", "SEMAPHORE")),
				Arguments.of(PermitsWithoutSemaphore.class,
						List.of("PermitsWithoutSemaphore.place(Order)", "permits = 3", "SEMAPHORE")));
	}

	@Test
	void asynchronousMethodsTakeEveryMode() {
		this.contextRunner.withBean(CompletableFutureReturn.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(CompletableFutureReturn.class).placeAsync(new Order("o-1")).get(30,
					java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("o-1");
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("invalidDeclarations")
	void invalidDeclarationStopsTheContext(Class<?> beanClass, List<String> expectedFragments) {
		this.contextRunner.withBean(beanClass).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining(beanClass.getName() + ".")
				.satisfies((ex) -> assertThat(ex.getMessage()).contains(expectedFragments));
		});
	}

	@Test
	void minHoldLongerThanTheConfiguredMaxHoldStopsTheContext() {
		this.contextRunner.withPropertyValues("zk-lock.max-hold=10s").withBean(MinHoldOnly.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining(MinHoldOnly.class.getName() + ".place(Order)")
				.hasMessageContaining("minHold \"30s\" is longer than zk-lock.max-hold (PT10S), which caps this "
						+ "method's hold")
				.hasMessageContaining("give the method a maxHold of its own");
		});
		// control: without the default cap it starts
		this.contextRunner.withBean(MinHoldOnly.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void maxHoldIsCheckedAgainstTheConfiguredTick() {
		this.contextRunner.withPropertyValues("zk-lock.pause-detection.tick=500ms")
			.withBean(MaxHoldOfThreeHundredMillis.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidLockDeclarationException.class)
					.hasMessageContaining(MaxHoldOfThreeHundredMillis.class.getName() + ".place(Order)")
					.hasMessageContaining("maxHold \"300ms\" is 300 ms, less than one tick of zk-lock's clock "
							+ "(zk-lock.pause-detection.tick = PT0.5S)");
			});
		// control: the default tick of 10 ms
		this.contextRunner.withBean(MaxHoldOfThreeHundredMillis.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void minHoldIsParsedWithPlaceholdersAndPassedToTheRequest() {
		this.contextRunner.withPropertyValues("job.min-hold=900ms").withBean(MinHoldJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			LockOperationSource source = context.getBean(LockOperationSource.class);
			LockOperation operation = source.getOperation(MinHoldJob.class.getMethod("run"), MinHoldJob.class);
			assertThat(operation).isNotNull();
			assertThat(operation.getMinHold()).isEqualTo(java.time.Duration.ofMillis(900));
			assertThat(operation.createRequest(new Object[0], null).minHold())
				.isEqualTo(java.time.Duration.ofMillis(900));
			LockOperation zero = source.getOperation(MinHoldJob.class.getMethod("none"), MinHoldJob.class);
			assertThat(zero).isNotNull();
			assertThat(zero.getMinHold()).as("\"0\" means none").isNull();
		});
	}

	@Test
	void everyInvalidMethodOfABeanIsReportedAtOnce() {
		this.contextRunner.withBean(TwoInvalidMethods.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining("2 invalid @DistributedLock declarations")
				.hasMessageContaining("TwoInvalidMethods.first(Order)")
				.hasMessageContaining("TwoInvalidMethods.second(Order)");
		});
	}

	@Test
	void typeLevelDeclarationIsCheckedForEveryPublicMethod() {
		this.contextRunner.withBean(TypeLevelWithUnknownParameter.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining("TypeLevelWithUnknownParameter.other(String)")
				.hasMessageContaining("'#order'");
		});
	}

	@Test
	void validDeclarationsStartAndAreNotEvaluatedAtStartup() {
		this.contextRunner.withBean(ValidDeclarations.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ValidDeclarations bean = context.getBean(ValidDeclarations.class);
			assertThat(bean.calls()).isEqualTo(0);
			assertThat(bean.place(new Order("1"))).isEqualTo("1");
			assertThat(bean.calls()).isEqualTo(1);
		});
	}

	record Order(String id) {
	}

	static class UnparseableKey {

		@DistributedLock(key = "#order.id +")
		public String place(Order order) {
			return order.id();
		}

	}

	static class UnknownParameter {

		@DistributedLock(key = "#ordr.id")
		public String place(Order order) {
			return order.id();
		}

	}

	static class IndexOutOfRange {

		@DistributedLock(key = "#p1")
		public String place(Order order) {
			return order.id();
		}

	}

	static class UnknownBean {

		@DistributedLock(key = "@missingBean.key(#order)")
		public String place(Order order) {
			return order.id();
		}

	}

	static class BadTimeout {

		@DistributedLock(key = "#order.id", timeout = "5 seconds")
		public String place(Order order) {
			return order.id();
		}

	}

	static class NegativeTimeout {

		@DistributedLock(key = "#order.id", timeout = "-1s")
		public String place(Order order) {
			return order.id();
		}

	}

	static class ZeroMaxHold {

		@DistributedLock(key = "#order.id", maxHold = "0")
		public String place(Order order) {
			return order.id();
		}

	}

	static class BadMaxHold {

		@DistributedLock(key = "#order.id", maxHold = "ten minutes")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MaxHoldShorterThanTimeout {

		@DistributedLock(key = "#order.id", timeout = "5s", maxHold = "1s")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MaxHoldBelowOneTick {

		@DistributedLock(key = "#order.id", timeout = "0", maxHold = "5")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MaxHoldOfThreeHundredMillis {

		@DistributedLock(key = "#order.id", timeout = "0", maxHold = "300ms")
		public String place(Order order) {
			return order.id();
		}

	}

	static class BadMinHold {

		@DistributedLock(key = "#order.id", minHold = "a while")
		public String place(Order order) {
			return order.id();
		}

	}

	static class NegativeMinHold {

		@DistributedLock(key = "#order.id", minHold = "-1s")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MinHoldLongerThanMaxHold {

		@DistributedLock(key = "#order.id", maxHold = "10s", minHold = "30s")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MinHoldOnly {

		@DistributedLock(key = "#order.id", minHold = "30s")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MinHoldJob {

		@DistributedLock(timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "${job.min-hold}")
		public void run() {
		}

		@DistributedLock(timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "0")
		public void none() {
		}

	}

	static class UnresolvablePlaceholder {

		@DistributedLock(key = "#order.id", timeout = "${missing.lock-timeout}")
		public String place(Order order) {
			return order.id();
		}

	}

	static class MissingFallback {

		@DistributedLock(key = "#order.id", fallbackMethod = "noSuchMethod")
		public String place(Order order) {
			return order.id();
		}

	}

	static class WrongFallbackParameters {

		@DistributedLock(key = "#order.id", fallbackMethod = "recover")
		public String place(Order order) {
			return order.id();
		}

		String recover(String id) {
			return id;
		}

	}

	static class WrongFallbackReturnType {

		@DistributedLock(key = "#order.id", fallbackMethod = "recover")
		public String place(Order order) {
			return order.id();
		}

		Integer recover(Order order) {
			return 0;
		}

	}

	static class SkipOnPrimitive {

		@DistributedLock(key = "#order.id", onTimeout = OnTimeout.SKIP)
		public int count(Order order) {
			return 1;
		}

	}

	static class CompletableFutureReturn {

		@DistributedLock(key = "#order.id", mode = LockMode.WRITE)
		public CompletableFuture<String> placeAsync(Order order) {
			return CompletableFuture.completedFuture(order.id());
		}

	}

	static class FutureReturn {

		@DistributedLock(key = "#order.id")
		public Future<String> placeLater(Order order) {
			return CompletableFuture.completedFuture(order.id());
		}

	}

	static class NoPermits {

		@DistributedLock(key = "#order.id", mode = LockMode.SEMAPHORE, permits = 0)
		public String place(Order order) {
			return order.id();
		}

	}

	static class PermitsWithoutSemaphore {

		@DistributedLock(key = "#order.id", permits = 3)
		public String place(Order order) {
			return order.id();
		}

	}

	static class TwoInvalidMethods {

		@DistributedLock(key = "#nope")
		public String first(Order order) {
			return order.id();
		}

		@DistributedLock(key = "#order.id", timeout = "soon")
		public String second(Order order) {
			return order.id();
		}

	}

	@DistributedLock(key = "#order.id")
	static class TypeLevelWithUnknownParameter {

		public String place(Order order) {
			return order.id();
		}

		public String other(String id) {
			return id;
		}

	}

	static class ValidDeclarations {

		final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "#order.id", timeout = "2s", fallbackMethod = "recover")
		public String place(Order order) {
			this.calls.incrementAndGet();
			return order.id();
		}

		String recover(Order order) {
			return "recovered";
		}

	}

}
