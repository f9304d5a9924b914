package dev.zklock.aop

import dev.zklock.annotation.DistributedLock
import dev.zklock.annotation.OnTimeout
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.util.stream.Stream

/**
 * The Kotlin counterparts of [DistributedLockValidationTests] where the rule
 * differs for suspend functions: their key and fallback see the declared
 * parameters only, without the Continuation Kotlin adds, and a skipped call needs
 * a nullable return type.
 */
class CoroutineLockValidationTests {

    private val contextRunner: ApplicationContextRunner = TestZooKeeper.contextRunner()

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidDeclarations")
    fun invalidDeclarationStopsTheContext(beanClass: Class<*>, expectedFragments: List<String>) {
        contextRunner.withBean(beanClass).run { context: AssertableApplicationContext ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).rootCause()
                .isInstanceOf(InvalidLockDeclarationException::class.java)
                .hasMessageContaining(beanClass.name + ".")
                .satisfies({ ex -> assertThat(ex.message).contains(expectedFragments) })
        }
    }

    @Test
    fun validSuspendDeclarationsStartAndSeeTheirDeclaredParameters() {
        contextRunner.withBean(ValidSuspend::class.java).run { context ->
            assertThat(context).hasNotFailed()
            val bean = context.getBean(ValidSuspend::class.java)
            runBlocking {
                assertThat(bean.byName("o-1", 2)).isEqualTo("o-1 2")
                assertThat(bean.byIndex("o-2", 3)).isEqualTo("o-2 3")
                assertThat(bean.skipped("o-3")).isEqualTo("o-3")
                bean.unit("o-4")
                assertThat(bean.stream("o-5").toList()).containsExactly("o-5")
            }
        }
    }

    companion object {

        @JvmStatic
        fun invalidDeclarations(): Stream<Arguments> = Stream.of(
            Arguments.of(ContinuationInKey::class.java,
                listOf("ContinuationInKey.place(String)", "'#p1'", "1 parameter",
                    "declared parameters only, not the Continuation")),
            Arguments.of(SkipOnNonNullReturn::class.java,
                listOf("SkipOnNonNullReturn.count(String)", "onTimeout = SKIP", "not nullable",
                    "make the return type nullable")),
            Arguments.of(BlockingFallbackOfSuspend::class.java,
                listOf("BlockingFallbackOfSuspend.place(String)", "wrong parameters",
                    "suspend fun recover(String)")),
            Arguments.of(FallbackCountingTheContinuation::class.java,
                listOf("FallbackCountingTheContinuation.place(String)", "wrong parameters",
                    "suspend fun recover(String)")),
        )

    }

    open class ContinuationInKey {
        @DistributedLock(key = "#p1")
        open suspend fun place(id: String): String = id
    }

    open class SkipOnNonNullReturn {
        @DistributedLock(key = "#id", timeout = "0", onTimeout = OnTimeout.SKIP)
        open suspend fun count(id: String): String = id
    }

    open class BlockingFallbackOfSuspend {
        @DistributedLock(key = "#id", fallbackMethod = "recover")
        open suspend fun place(id: String): String = id

        open fun recover(id: String): String = id
    }

    open class FallbackCountingTheContinuation {
        @DistributedLock(key = "#id", fallbackMethod = "recover")
        open suspend fun place(id: String): String = id

        open suspend fun recover(id: String, extra: String): String = id + extra
    }

    open class ValidSuspend {
        @DistributedLock(key = "#id", fallbackMethod = "recover")
        open suspend fun byName(id: String, count: Int): String = "$id $count"

        open suspend fun recover(id: String, count: Int): String = "recovered $id"

        @DistributedLock(key = "#p0")
        open suspend fun byIndex(id: String, count: Int): String = "$id $count"

        @DistributedLock(key = "#id", timeout = "10s", onTimeout = OnTimeout.SKIP)
        open suspend fun skipped(id: String): String? = id

        @DistributedLock(key = "#id", timeout = "10s", onTimeout = OnTimeout.SKIP)
        open suspend fun unit(id: String) {
        }

        @DistributedLock(key = "#id", timeout = "10s", onTimeout = OnTimeout.SKIP)
        open fun stream(id: String): Flow<String> = flowOf(id)
    }

}
