/// The hostile provider's RSA key pairs: fixed test material, made once with
/// `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048` and never used anywhere else.
///
/// Generating them at run time cost three 2048-bit key generations on a thread of Swift's
/// concurrency pool, inside a lazy global's one-time initializer that every other test touching
/// the keys waits on, blocking its own thread: on a machine busy with the whole suite that can
/// hold both pool threads for seconds. Reading a PEM costs well under a millisecond.
enum HostileKeyMaterial {
    static let rsa1 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDSi+3OZKPSLtUq
        NH5vbFQURkHmKOcFTtcByxYx36098mru8DRm3PTM7jQyguUtdK1o3/YV0e4e5PeB
        GKf1IH+Mc/WQZKa5u+dn/XjF8qvjBFvkj519kCggnEDi8wS5ju9SeUvQh/lOsw/L
        fEREFx/S4CKCmNmsAtbuaVbMpDGyH08hll46WHkkQVEHZwaNWsUItPKpu47+z52n
        QBTAESUxqMJycLReje+paIMDmyH8EoSfr6hwjweRhoV8CQL8+xKpyAu/Z2y5Mrss
        H2Fj/zpdjkaGoTFW3x7Cp+kpFE8n6HrwBnn7d+rxKXyWPsPxsA/WYbgZeKMCfDFL
        x5BweSAxAgMBAAECggEAEOMhTUscKqkP9uUj+Prm2YNzGKtSMEZND3tDCfgHVK8j
        bYu9oDx7tA4tCJogGJ/BouZHviNK5pZ11ZhtLEeRg2nvmcfA6afNHTWi4LmgmMJK
        PpBYUPBlj4wI1ksop1t0DZjmAFFPqUTKcQdEEHQMXOUWT4RD/TxzEcdIK3zF8aPU
        88nX6gLlhKod1vbHUgVN/G+MS5rJ/xknV5hJgldlevgu/MZiZVjFee0mAWPJob0C
        Tz0j59bwPETkVGyzRc0BWCXQHYHfxqYtIPZJFkQrjRZHWBZ2nnJsMIecU7sV4KK4
        uTFWp2A3XbEVji5NscMIXBc3Nw/xg+Y3iYzTc9iKeQKBgQDzW47JsSNOqZgqW20e
        cKF9CuittJvLL/S1bAEqbI8tfLv80N+MzATHdB5yIWD00EyKM0+7v3vSPVWxosYE
        Nc8EDz3hLpVQsSuBVdQgo3W9evZb1fNmeBjRbfrz3GNO3tGU8SQIFEID5VUbw+8f
        BZQtK/T7ImBEFmEtAsIPYcpvXQKBgQDdfANbj+nSt0Npx1c6vodcmtWoU2HGZQsm
        JLcIZKe+j9rgUlXzD5GqAz4KO+vc+4cNrDmW4WUF+xW+n6urcxNCx62uaOLM496e
        nkqRmCBmDk+4UJmYd+owQhsOHuqJayCGGznStiZnVKpP9TZyfRUiYsG1IpP4wQSF
        Cg6WO/Nq5QKBgCM8QXtgg30zPw36+NyscCVbu/7SpLARvHu8LJsI5t4uLkXXtFZ9
        f7+lR3c87/3iXwKvlT7Y5cO2D79NkyAu7k9nKY1+Ii5xyJvMYo9rO3P45sy7OKfA
        gc9o/inq4hIcXvoSxCXLURehT+ZaQzgZpa+4qprmCkwxdVaADLsPbLEdAoGALLtD
        Ilbqbng80TxFTcP1KqrKw/gzIxJ9MfLwVG2fw0jid7OpUDGwxZlqCj8X38Wc/RHv
        f519/bs8JQeycCoJlc8mMLdWNvM+nuJxRP5obLQvPZZprvVpAt4XAL8VtzM/mlYd
        U4UeNHhQ/V0U5gKFJjCz1pVpNTAmbYgechEhlFECgYA3jtiegCbWpuuCxX82wFUs
        V4I9DoppWT2bVesmqY+hR6iIcNL0vIBmmjqbL9GX/OkvG8ucu0XQpa02pDvWRTHD
        bsGr1awD+F6o3oES4gtHOJbQjzhB9u6rQnqBSu+O3u0KGAeXMVsiyR0Njb5M5D6E
        bBsx1mNHHf1oUgiQcOk0Dw==
        -----END PRIVATE KEY-----
        """

    static let rsa2 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQD9YwNAIkLxXyND
        7IyTiT/ORyKPJaCIWupLIUf7uFHZxgtgIGgg7ILMYOJgZctJ1bMAX1qKFrIGM52y
        5EaIeuu9KtJ5GZEQBD+L9YybbKGpjRBIqsHNiAmOoQt8h6HAP+AsAwpySTHtq+7e
        iFQRroirx8YqeVSYdElfrkDmG6XRfKkgL0J43RLG0eO5Ca9JZ0+jO+PVP7S+oqZ5
        KUqnpv3pdWP4NtPT2Nr6Jc1Am2OVpuGBEeOwl1j2Ex2I7IalM79pIkPYxo6cE/BS
        oM02e8RJflTxCshCcAIF2NtYOcq4kj5HRVK0Olq61ldXWUqnTB3/jo0oF/fnYPg6
        UXuOk+iDAgMBAAECggEAUZbEsK13jb4bHl94QnditrqcC6jLgKx5nbh5M7n9jRhi
        iFDXBqbxVPrrWavdYghwC3IotqcpKqsLH9O2THL8HlzACeNsHNKpXZky7cb0ZSJ5
        eFSXc+VWYnlDuBT6ReurdLCD+BnOfF+s2jXekBT5iAqbKgkIbtCe4bK7zfxgD8wm
        qdXiiir5tifSiRZe82HFQXoTz/Yg9xFj0OfcIcWz2AgdfvFS6W7slL6pkMCECVwm
        L75uh5By5ZYiXbNB7/5OmCxWv1XX/xNSGDtuF6LkUFyfqzUrexNYb0G4b4Q2Xb01
        1OIjeuyrCOnuLSNcmwGcD0TSfYnlgDjwc1pELE+dUQKBgQD/o0mB/MEH/liLfLhP
        BaOfzilIlJ1H70eQkVeCWD8FlckIqnkKnNbeNEBYPOveyKyyCqEpoAlWdOJc9V6z
        NAQNR7ehAGJhu8Z1TsS2bS5VxmDqbM1z4MX9EEbOKwbbxL/uU5IR5NnTbeI7x5mG
        DsUHtwMhWvmdh2Q9wbseCMKLEQKBgQD9vui+Z1WmHcS89/o/s4oIBgrkvkKvnU3Q
        vE1vnF/8ep14pHbAzgaaaSNBjG2hXw9JhA5mTF/O7yjz0iNASW9tJXaP5nNJbZd2
        AqJYqIYjz5KtL5uWVhGaH8FOdUTdZinxD2DHya38tLsaDOOA8on/bGmBSAWTDoz/
        UxZFX9+yUwKBgQDlIQFA3kBSHtpUY/x6764CDXIZWQNEN6coX+1Uqi4Knn+rIckO
        Bxfb4G+P50Lu02Vey4I6YfQcpvVBprgz3TqIgLCJQWPs/7ZY7LoKXP/756x0UgMw
        itZLBezA2/Xww3/YaNVy7nGDPWladYQYkWJukM3gdr9nP7RMWjmSKP3eUQKBgQCd
        oeCikD1D8hBLOF3s/tMMAvz3dz6kLDuwJZqRcHqstVtoG/tt8U9m01PEn8FnU0+C
        4xey81U9j5NITM37XONs0a4i3Q3Xms5R0HccTqzuSEAdeIrWTOeocHu9CtraE2KQ
        z3XXB3IfoALvvvwCGioiVC4C00QrRAnRf8NBG7sy4wKBgQClrVrc8idUySHnfSb4
        Js2hZzbpp9NmH14sgX8pwkiGj8zndCqGdEQPYFFHjGWCOKE2OJta6Kb6Lo9dJ2wZ
        2kBf8TELRb36hHDzms6dCGB7J0UZ3blTQzZpEUv0Fd1L12PLSXYwEqvBZoJmHBGa
        8rd5O7ArMEZpUu3VkF7XpODOLQ==
        -----END PRIVATE KEY-----
        """

    static let rsa3 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDRveD6SBlOEE8/
        CYoQUwQZxmEAgFBiA7egNgNB89RABc1r346vLSSh7JiTfX7zJLxEHKb699kcyh9z
        Ai3+SE724NRTTZ5VyppuLC5KRI0iJvIEIxs9q68124VXAwmGoykw2Sus6WGq1s2h
        x6iEdc836ezFygz5Xj6xVpwPRvq1MUxTPtbFnllitH9BeNPLv73CMOgp/24UK9zy
        NZv3v/+Z0jMBW7vO6QKy6RK66QpyJMglEM5u5xIu7NfFIrv64iBP6gH9vv8JkR90
        8hSkjscWeqmUv/99+Y9avbBMiONTJzMBkxZjQ2wvKt66070a6lCVViSt8IK7a4Gt
        7afcJe+hAgMBAAECggEACDmuMp6EeIhg9TfIbXC2ANVD7Vc638clyr+Hg+z+Ikcf
        +dal87Z9YOjEiIczxPEIPZMSlNXGss916YaYu2fGSf4B8aTh/FsSUJcEtzamQsQ8
        ej9OtI3QtJff7CxDMb+hEEh6AyFRalfbb1hjQlOU7WxL8+tDND3XD1EWVG6MCzI6
        HfEBm0sYSqxpmo72Q2tMAMq4CZt7hgx2xIkeXGOnaUExRS7fGraj96+nCwN2oZ/k
        8quF9KBd0m02i6HrYqlTJVK+0K3u7yIBaJBiyQf2qmoACZF9Yjb82GyigyHHzqEU
        Mk3OTfkryhie++rq6Jdfgk3dB973c52Ow0FZqax+WQKBgQD8tqbVzv17l/X66gGO
        Pjp5Ux9RduUap7sGmvL7vlbIxzix4sM/Xteo7ArzETl45R8FEBDLHsaLldnNhUVj
        4eG7q7z1CxAVwNbbeKGv0GnqevGZnGnXUN1NXmxY0uZZgBNCkDOF8fI0lH8CDla5
        t65SEEY5juu3qxFUOrHv/MRVCQKBgQDUeCm8LjNwzwT165xkh5m4HhEevc75KjqY
        XG0bEAkga58d/72ymkBfIq4XOsYaOfxhICJHAVs8eWvKtCh+v8u7sdhlhIgUGHyn
        tZB+L8tL2tS6/9EWibtfVz9hrt6+bO5H1X1V69KarFKug9V+QDUMlXwoKAVYpUy6
        ++s7dlTD2QKBgBxlWbHEpG7y0Ez1Zl9ZVrCzSl2ZAn1QQ4+mcY8gABhnalNyq4W/
        XnQ4sbJGSTLwa9/hwkFQn/anS+XwB7AFfZvc3Eqch54qIPpgP6rFvGEAl40vKiVr
        jLJY3cvNRtzfq0pbca6nVRPba7oLamtL3GaUNY/aI1pr+nKAdeYFfPohAoGBAMEk
        BpRYz0wx9El1B7LfDV6wflGaq6YWvDM6ebgLKLC/BGLp0tCjpfaVePoG5IR8x66m
        3mH7mqtrmRAoG1O1GAekUJlgE69o3xA5XYNIAR8QayceWzyIsbqmfihXJYanUSgd
        qxTLDaSrF3Iqx40/4rlwve9nCg0eHpUvYhOoqr9pAoGAPnj9/seEU3CCmO983mfQ
        3gNMVzI0I05j7ie0pb2U6HIjamPoaKm3jUEkNUls94McKPFlDoy8qxFnQEoxWYsD
        b1qbgmS4nCTdY0G7ANgfS3/0B3IH2GcGL/ITtmQm8bMWtbTuIbW+jd3KJfCMbDUE
        p9fZdiff4fuopX/i7n6dcgA=
        -----END PRIVATE KEY-----
        """
}
