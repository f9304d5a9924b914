package dev.zklock.aop

import dev.zklock.testsupport.JvmProcess
import dev.zklock.testsupport.OutputLines
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Path
import java.time.Duration
import java.util.UUID

/**
 * An application with a `@DistributedLock` suspend function whose JVM lacks
 * kotlinx-coroutines-reactor ([CoroutinesReactorFreeApplication]) stops at
 * startup, naming the method and the dependency to add, instead of running the
 * function unlocked.
 */
class CoroutinesReactorAbsentTests {

    @TempDir
    lateinit var directory: Path

    @Test
    fun aSuspendFunctionWithoutCoroutinesReactorStopsStartup() {
        val output = OutputLines()
        val application = JvmProcess.builder("coroutines-reactor-free application",
            CoroutinesReactorFreeApplication::class.java.name + "Kt")
            .directory(directory)
            .classPathWithout("kotlinx-coroutines-reactor")
            .arguments(listOf("--zk-lock.connect-string=" + TestZooKeeper.connectString(),
                "--zk-lock.base-path=/coroutines-reactor-free/" + UUID.randomUUID()))
            .jvmOptions(listOf("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"))
            .outputListener(output)
            .build()
        application.start()
        val status = application.awaitExit(Duration.ofSeconds(120))
        val result = output.awaitLine(application, "RESULT ", Duration.ofSeconds(10))
        println(result)
        assertThat(status).`as` { application.diagnostics() }.isZero()
        assertThat(result).startsWith("RESULT failed InvalidLockDeclarationException: ")
            .contains(CoroutinesReactorFreeApplication.SuspendWork::class.java.name + ".work(String)")
            .contains("it is a suspend function")
            .contains("add the dependency org.jetbrains.kotlinx:kotlinx-coroutines-reactor")
    }

}
